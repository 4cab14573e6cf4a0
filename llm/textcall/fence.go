package textcall

import (
	"bytes"
	"strings"
)

// runFence collects a fenced block until its closing fence line.
func (p *Parser) runFence(final bool) bool {
	b := p.buf
	at := -1
	wait := -1 // start of a line that may become the closing fence
	for i := 0; i < len(b); i++ {
		lineBegin := i == 0 && p.fenceLineStart() || i > 0 && b[i-1] == '\n'
		if !lineBegin {
			continue
		}
		j := i
		for j < len(b) && (b[j] == ' ' || b[j] == '\t') {
			j++
		}
		rest := b[j:]
		if bytes.HasPrefix(rest, []byte(fence)) {
			nl := bytes.IndexByte(rest, '\n')
			if nl < 0 && !final {
				wait = i
				break
			}
			end := len(b)
			if nl >= 0 {
				end = j + nl + 1
			}
			at = end
			break
		}
		if !final && len(rest) < len(fence) && strings.HasPrefix(fence, string(rest)) {
			wait = i
			break
		}
	}
	if at < 0 {
		// No closing fence yet: keep what might start one.
		keep := 0
		if wait >= 0 {
			keep = len(b) - wait
		} else if !final {
			if k := bytes.LastIndexByte(b, '\n'); k >= 0 && lineBlank(bytes.TrimRight(b[k+1:], "`")) {
				keep = len(b) - k - 1
			} else if k < 0 && p.fenceLineStart() && lineBlank(bytes.TrimRight(b, "`")) {
				keep = len(b)
			}
		}
		p.fenceTake(b[:len(b)-keep])
		p.buf = append(p.buf[:0], b[len(b)-keep:]...)
		return false
	}
	p.fenceTake(b[:at])
	p.buf = append(p.buf[:0], b[at:]...)
	if p.st == inFenceText {
		p.st = inText
		return true
	}
	p.st = inText
	p.closeFence()
	return true
}

func (p *Parser) fenceLineStart() bool {
	if p.st == inFence {
		return len(p.fenceBuf) > 0 && p.fenceBuf[len(p.fenceBuf)-1] == '\n'
	}
	return p.lineStart
}

func (p *Parser) fenceTake(b []byte) {
	if len(b) == 0 {
		return
	}
	if p.st == inFence {
		p.fenceBuf = append(p.fenceBuf, b...)
		return
	}
	p.text(string(b))
}

// closeFence decides what a closed ```json block was: calls are held
// until the reply shows whether text follows them.
func (p *Parser) closeFence() {
	raw := string(p.fenceBuf)
	p.fenceBuf = p.fenceBuf[:0]
	first := strings.IndexByte(raw, '\n')
	last := strings.LastIndex(strings.TrimRight(raw, "\n"), "\n")
	body := ""
	if first >= 0 && last > first {
		body = strings.TrimSpace(raw[first+1 : last])
	}
	calls, problem := p.decode(body)
	if problem != "" || !p.allKnown(calls) {
		p.text(raw)
		return
	}
	if len(p.held) > 0 {
		p.heldRaw = append(p.heldRaw, p.heldWS...)
		p.heldWS = nil
	}
	p.held = append(p.held, calls...)
	p.heldRaw = append(p.heldRaw, raw...)
	p.lineStart = true
}
