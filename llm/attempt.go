package llm

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"
)

// maxJSONAnswer bounds a non-streaming answer read from a server that
// ignored "stream": true.
const maxJSONAnswer = 32 << 20

// attempt sends the request once and folds its stream into p. It returns
// nil when the stream completed ([DONE] or a finish reason, then EOF), or
// why it did not. onOpen runs when a 2xx answer arrived. The attempt is
// bounded by ctx and by the idle timer, which restarts whenever bytes
// arrive.
func (c *Client) attempt(ctx context.Context, oa *openai.Client, params openai.ChatCompletionNewParams, p *parser, onOpen func()) *failure {
	actx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	idle := time.AfterFunc(c.idle, func() { cancel(errIdle) })
	defer idle.Stop()

	// classify turns an error into a failure, looking first at why the
	// attempt's context ended.
	classify := func(err error) *failure {
		if ctx.Err() != nil {
			return &failure{msg: "aborted", aborted: true}
		}
		if errors.Is(context.Cause(actx), errIdle) {
			return streamFailure(errIdle, c.idle)
		}
		return streamFailure(err, c.idle)
	}

	var resp *http.Response
	err := oa.Post(actx, "chat/completions", params, &resp, option.WithResponseInto(&resp))
	if err != nil {
		if ctx.Err() == nil && context.Cause(actx) == nil && resp != nil && resp.StatusCode >= 400 {
			return httpFailure(resp, c.now())
		}
		f := classify(err)
		if !f.aborted && !errors.Is(context.Cause(actx), errIdle) {
			f.msg = "request failed: " + err.Error()
		}
		return f
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 400 { // not reported as an error by a custom HTTP client
		return httpFailure(resp, c.now())
	}
	onOpen()

	// A server that ignored "stream": true answers with one JSON object;
	// an event stream starts with a field name or a comment instead.
	// Any bytes, SSE comments (keep-alives) included, restart the idle
	// timer.
	ir := &idleReader{r: resp.Body, t: idle}
	ir.d.Store(int64(c.idle))
	br := bufio.NewReader(ir)
	if first, err := firstByte(br); err == nil && first == '{' {
		return c.readJSONAnswer(br, p, classify)
	}
	resp.Body = readCloser{br, resp.Body}
	dec := ssestream.NewDecoder(resp)
	for dec.Next() {
		if err := p.handle(dec.Event().Data); err != nil {
			return streamFailure(err, c.idle)
		}
		if p.done {
			return nil
		}
		if p.finish != "" && p.sawUsage {
			// A complete answer: some providers then hold the connection
			// open without sending [DONE].
			return nil
		}
		if p.finish != "" && ir.d.Load() != int64(finishGrace) {
			// The finish reason came, the usage may follow: wait for it
			// only briefly.
			ir.d.Store(int64(finishGrace))
			idle.Reset(finishGrace)
		}
	}
	if p.finish != "" && errors.Is(context.Cause(actx), errIdle) && ctx.Err() == nil {
		return nil // finished, and nothing more came within finishGrace
	}
	if err := dec.Err(); err != nil || actx.Err() != nil {
		if err == nil {
			err = context.Cause(actx)
		}
		return classify(err)
	}
	if p.finish != "" {
		return nil // some servers end without [DONE]
	}
	return classify(errors.New("the stream ended before the answer was complete"))
}

// readJSONAnswer folds a whole chat.completion (a server that ignored
// "stream": true) into p.
func (c *Client) readJSONAnswer(body io.Reader, p *parser, classify func(error) *failure) *failure {
	data, err := io.ReadAll(io.LimitReader(body, maxJSONAnswer))
	if err != nil {
		return classify(err)
	}
	if err := p.handle(data); err != nil {
		return streamFailure(err, c.idle)
	}
	if p.finish == "" && !p.sawContent {
		return &failure{msg: fmt.Sprintf("provider answered with JSON that is not a chat completion: %s", truncate(string(data), 200))}
	}
	return nil
}

type readCloser struct {
	io.Reader
	io.Closer
}

// firstByte peeks at the first byte that is not white space.
func firstByte(br *bufio.Reader) (byte, error) {
	for {
		b, err := br.ReadByte()
		if err != nil {
			return 0, err
		}
		if b != ' ' && b != '\t' && b != '\r' && b != '\n' {
			return b, br.UnreadByte()
		}
	}
}

// idleReader restarts the idle timer whenever a read returns data.
type idleReader struct {
	r io.Reader
	t *time.Timer
	d atomic.Int64 // the timeout, a time.Duration
}

func (ir *idleReader) Read(p []byte) (int, error) {
	n, err := ir.r.Read(p)
	if n > 0 {
		ir.t.Reset(time.Duration(ir.d.Load()))
	}
	return n, err
}

// finishGrace is how long a stream may stay open after its finish reason
// before the answer is taken as complete (the usage chunk normally follows
// at once).
const finishGrace = 2 * time.Second
