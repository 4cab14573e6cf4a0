package otel

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric/pmetricotlp"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
)

// receiver is an OTLP/HTTP receiver on loopback that decodes what it
// gets with the collector's pdata.
type receiver struct {
	srv     *httptest.Server
	mu      sync.Mutex
	spans   []span
	metrics []string
	bad     []string
}

// span is a received span, flattened.
type span struct {
	name           string
	trace          string
	id, parent     string
	kind           string
	status         string
	attrs          map[string]string
	events         []string
	eventAttrs     []map[string]string
	start, end     int64
	service, scope string
}

func newReceiver(t testing.TB) *receiver {
	t.Helper()
	r := &receiver{}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) serve(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(req.Body)
	if err != nil || req.Header.Get("Content-Type") != "application/x-protobuf" {
		r.fail(req.URL.Path + ": bad request " + req.Header.Get("Content-Type"))
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	switch req.URL.Path {
	case "/v1/traces":
		er := ptraceotlp.NewExportRequest()
		if err := er.UnmarshalProto(body); err != nil {
			r.fail("traces: " + err.Error())
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		r.addTraces(er.Traces())
		out, _ := ptraceotlp.NewExportResponse().MarshalProto()
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.Write(out)
	case "/v1/metrics":
		er := pmetricotlp.NewExportRequest()
		if err := er.UnmarshalProto(body); err != nil {
			r.fail("metrics: " + err.Error())
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		rms := er.Metrics().ResourceMetrics()
		r.mu.Lock()
		for i := 0; i < rms.Len(); i++ {
			sms := rms.At(i).ScopeMetrics()
			for j := 0; j < sms.Len(); j++ {
				ms := sms.At(j).Metrics()
				for k := 0; k < ms.Len(); k++ {
					r.metrics = append(r.metrics, ms.At(k).Name())
				}
			}
		}
		r.mu.Unlock()
		out, _ := pmetricotlp.NewExportResponse().MarshalProto()
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.Write(out)
	default:
		r.fail("unknown path " + req.URL.Path)
		w.WriteHeader(http.StatusNotFound)
	}
}

func (r *receiver) fail(s string) {
	r.mu.Lock()
	r.bad = append(r.bad, s)
	r.mu.Unlock()
}

func attrMap(m pcommon.Map) map[string]string {
	out := map[string]string{}
	m.Range(func(k string, v pcommon.Value) bool {
		out[k] = v.AsString()
		return true
	})
	return out
}

func (r *receiver) addTraces(td ptrace.Traces) {
	r.mu.Lock()
	defer r.mu.Unlock()
	rss := td.ResourceSpans()
	for i := 0; i < rss.Len(); i++ {
		svc, _ := rss.At(i).Resource().Attributes().Get("service.name")
		sss := rss.At(i).ScopeSpans()
		for j := 0; j < sss.Len(); j++ {
			ss := sss.At(j).Spans()
			for k := 0; k < ss.Len(); k++ {
				s := ss.At(k)
				out := span{name: s.Name(), trace: s.TraceID().String(), id: s.SpanID().String(), parent: s.ParentSpanID().String(),
					kind: s.Kind().String(), status: s.Status().Code().String(), attrs: attrMap(s.Attributes()),
					start: int64(s.StartTimestamp()), end: int64(s.EndTimestamp()), service: svc.AsString(), scope: sss.At(j).Scope().Name()}
				for e := 0; e < s.Events().Len(); e++ {
					out.events = append(out.events, s.Events().At(e).Name())
					out.eventAttrs = append(out.eventAttrs, attrMap(s.Events().At(e).Attributes()))
				}
				r.spans = append(r.spans, out)
			}
		}
	}
}

func (r *receiver) Spans() []span {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]span(nil), r.spans...)
}

func (r *receiver) Metrics() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.metrics...)
}

func (r *receiver) Bad() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.bad...)
}
