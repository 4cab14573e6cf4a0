// Command rein-otel exports rein's traces and metrics over OTLP/HTTP.
// rein starts it when the OTEL_* variables or telemetry.json ask for
// traces, and streams its tracer calls to it on standard input (see
// package telemetry/otelpipe); it replays them with OpenTelemetry's SDK
// and exporters (package telemetry/otel). Keeping the SDK in this
// program keeps it out of every start of rein that does not trace.
//
// Install it next to rein or on PATH:
//
//	go install github.com/reinhq/rein/cmd/rein-otel@latest
package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/reinhq/rein/telemetry/otel"
)

func main() {
	if len(os.Args) > 1 {
		fmt.Fprintln(os.Stderr, "rein-otel takes no arguments: rein starts it and writes its trace stream on standard input.\nSee docs/observability.md.")
		os.Exit(2)
	}
	err := otel.Replay(context.Background(), os.Stdin, os.Stdout)
	var exp *otel.ExportError
	if errors.As(err, &exp) {
		os.Exit(otel.ExitExportFailed) // already reported on stdout
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "rein-otel:", err)
		os.Exit(1)
	}
}
