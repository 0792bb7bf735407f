package llmlat

/*
#include <stdlib.h>

#include "capi.h"
*/
import "C"

import (
	"io"
	"runtime"
	"strconv"
	"unsafe"
)

// Input is the format of what a Reader reads (docs/importers.md). Its
// values are the C API's LLMLAT_INPUT_* ids.
type Input int32

// The input formats.
const (
	InputAuto      Input = 0 // told from the content
	InputTrace     Input = 1 // llmlat's trace (docs/cli.md)
	InputVLLM      Input = 2 // vllm bench serve --save-result --save-detailed
	InputAIPerf    Input = 3 // AIPerf profile_export.jsonl (or its raw export)
	InputGenAIPerf Input = 4 // GenAI-Perf profile_export.json
	InputSGLang    Input = 5 // sglang.bench_serving --output-file --output-details
	InputLLMPerf   Input = 6 // LLMPerf *_individual_responses.json
	InputGuideLLM  Input = 7 // GuideLLM benchmarks.json
	// inference-perf per_request_lifecycle_metrics.json
	InputInferencePerf Input = 8
)

// String is the format's name ("auto", "trace", "vllm", "genai-perf",
// ...), or "Input(N)" for an unknown id.
func (i Input) String() string {
	if s := C.llmlat_input_name(C.int32_t(i)); s != nil {
		return C.GoString(s)
	}
	return "Input(" + strconv.Itoa(int(i)) + ")"
}

// ParseInput is the Input named s, as Input.String spells it; ErrInvalid
// for an unknown name.
func ParseInput(s string) (Input, error) {
	for i := InputAuto; C.llmlat_input_name(C.int32_t(i)) != nil; i++ {
		if i.String() == s {
			return i, nil
		}
	}
	return InputAuto, invalid("parse input", "unknown input format "+strconv.Quote(s))
}

// Lacks says what a request rebuilt from another tool's result file lacks
// (the LLMLAT_LACKS_* bits): an aggregator given such requests reports
// what needs the missing data as not available (Aggregator.Unavailable).
type Lacks uint32

// What the data of a request may lack.
const (
	LacksStartTimes   Lacks = 1 << 0 // starts are not on one clock
	LacksEnd          Lacks = 1 << 1 // the end of the stream is unknown
	LacksChunkTokens  Lacks = 1 << 2 // tokens per chunk are unknown
	LacksChunks       Lacks = 1 << 3 // per-request values only (SetKnown)
	LacksOutputTokens Lacks = 1 << 4 // N is unknown
	LacksInputTokens  Lacks = 1 << 5 // the prompt length is unknown
	LacksGaps         Lacks = 1 << 6 // first and last chunk times only (GuideLLM)
	LacksSchedule     Lacks = 1 << 7 // no intended start times
)

// readBlock is how much of the source a Reader asks for at a time.
const readBlock = 1 << 20

// Reader reads the requests of a trace, or of another tool's result file,
// from an io.Reader, with the library's reader (the same grammar, exact
// decimal-to-ns conversion, rejection rule and "name:line:column: what"
// messages as the llmlat command). A request whose times go backwards is
// not handed over but rejected: Rejected counts them and Rejections holds
// their messages. A malformed input is an *Error matching ErrFormat whose
// Detail is the message. A Reader is used by one goroutine at a time;
// Close it when done (a finalizer frees one that was not closed).
type Reader struct {
	h          *readerHandle
	src        io.Reader
	ended      bool
	rejections []string
}

type readerHandle struct {
	c *C.llmlat_reader
}

func (h *readerHandle) free() {
	frees.Add(1)
	C.llmlat_reader_free(h.c)
	h.c = nil
}

// NewReader reads src as input (InputAuto: told from the content); name
// starts its messages. ErrInvalid for an unknown input format.
func NewReader(src io.Reader, input Input, name string) (*Reader, error) {
	if C.llmlat_input_name(C.int32_t(input)) == nil {
		return nil, invalid("new reader", "unknown "+input.String())
	}
	cname := C.CString(name)
	c := C.llmlat_reader_new(C.int32_t(input), cname)
	C.free(unsafe.Pointer(cname))
	if c == nil {
		return nil, &Error{Status: C.LLMLAT_ENOMEM, Op: "new reader"}
	}
	h := &readerHandle{c: c}
	runtime.SetFinalizer(h, (*readerHandle).free)
	return &Reader{h: h, src: src}, nil
}

// Close frees the reader's C memory (not src). It is idempotent and
// returns nil; later calls return ErrInvalid.
func (r *Reader) Close() error {
	if r != nil && r.h != nil && r.h.c != nil {
		runtime.SetFinalizer(r.h, nil)
		r.h.free()
	}
	return nil
}

func (r *Reader) handle() *C.llmlat_reader {
	if r == nil || r.h == nil {
		return nil
	}
	return r.h.c
}

func (r *Reader) keepAlive() {
	if r != nil {
		runtime.KeepAlive(r.h)
	}
}

// SetRun chooses the run to read of a file that holds several (1 for the
// first; 0, the default, for the last). Before the first Next or AddTo.
func (r *Reader) SetRun(run uint64) error {
	err := check(C.llmlat_reader_set_run(r.handle(), C.uint64_t(run)), "set run")
	r.keepAlive()
	return err
}

// fail is the error of a reading that stopped, with the reader's message.
func (r *Reader) fail(status C.int32_t, op string) error {
	err := &Error{Status: int32(status), Op: op}
	if h := r.handle(); h != nil {
		err.Detail = C.GoString(C.llmlat_reader_message(h))
	}
	return err
}

// feed reads the next block of src straight into the reader's buffer (C
// memory), or tells it the input ended.
func (r *Reader) feed() error {
	h := r.handle()
	if h == nil {
		return invalid("read", "closed reader")
	}
	if r.ended {
		return nil
	}
	var buf unsafe.Pointer
	var room C.size_t
	if st := C.llmlat_reader_space(h, readBlock, &buf, &room); st != C.LLMLAT_OK {
		return r.fail(st, "read")
	}
	n, err := r.src.Read(unsafe.Slice((*byte)(buf), readBlock))
	if n > 0 {
		if st := C.llmlat_reader_commit(h, C.size_t(n)); st != C.LLMLAT_OK {
			return r.fail(st, "read")
		}
	}
	if err == io.EOF {
		r.ended = true
		if st := C.llmlat_reader_end(h); st != C.LLMLAT_OK {
			return r.fail(st, "read")
		}
		return nil
	}
	return err
}

// step runs one call of the reader (next into req, or add_to into a):
// done at the end of the input.
func (r *Reader) step(call func(h *C.llmlat_reader, what *C.int32_t) C.int32_t, op string) (
	what C.int32_t, err error) {
	for {
		h := r.handle()
		if h == nil {
			return 0, invalid(op, "closed reader")
		}
		if st := call(h, &what); st != C.LLMLAT_OK {
			return 0, r.fail(st, op)
		}
		switch what {
		case C.LLMLAT_READ_REJECTED:
			r.rejections = append(r.rejections, C.GoString(C.llmlat_reader_message(h)))
		case C.LLMLAT_READ_MORE:
			if err := r.feed(); err != nil {
				return 0, err
			}
		default:
			return what, nil
		}
	}
}

// Next reads the next request into req (reset first): false at the end of
// the input. Rejected requests are skipped (see Rejections).
func (r *Reader) Next(req *Request) (bool, error) {
	what, err := r.step(func(h *C.llmlat_reader, what *C.int32_t) C.int32_t {
		return C.llmlat_reader_next(h, req.handle(), what)
	}, "read")
	r.keepAlive()
	req.keepAlive()
	return err == nil && what == C.LLMLAT_READ_REQUEST, err
}

// AddTo folds every request left into a, in C (much faster than Next and
// Add one by one).
func (r *Reader) AddTo(a *Aggregator) error {
	_, err := r.step(func(h *C.llmlat_reader, what *C.int32_t) C.int32_t {
		return C.llmlat_reader_add_to(h, a.handle(), what)
	}, "read")
	r.keepAlive()
	a.keepAlive()
	return err
}

// ID is the id of the last request read ("" when it has none).
func (r *Reader) ID() string {
	s := C.GoString(C.llmlat_reader_request_id(r.handle()))
	r.keepAlive()
	return s
}

// Position is where the last request read is: its 1-based number, line
// and column.
func (r *Reader) Position() (index, line, column uint64, err error) {
	var i, l, c C.uint64_t
	err = check(C.llmlat_reader_request_position(r.handle(), &i, &l, &c), "position")
	r.keepAlive()
	return uint64(i), uint64(l), uint64(c), err
}

func (r *Reader) counter(which C.int32_t) (uint64, bool) {
	var out C.uint64_t
	st := C.llmlat_reader_counter(r.handle(), which, &out)
	r.keepAlive()
	return uint64(out), st == C.LLMLAT_OK
}

// Requests is the number of requests read so far, rejected ones included.
func (r *Reader) Requests() uint64 {
	n, _ := r.counter(C.LLMLAT_READ_COUNT_REQUESTS)
	return n
}

// Rejected is the number of requests rejected so far.
func (r *Reader) Rejected() uint64 {
	n, _ := r.counter(C.LLMLAT_READ_COUNT_REJECTED)
	return n
}

// Rejections are the messages of the rejected requests, in order.
func (r *Reader) Rejections() []string {
	return r.rejections
}

// Run is the run read and the runs of a file with several, once it was
// read to its end; ok is false for a format without runs.
func (r *Reader) Run() (run, runs uint64, ok bool) {
	run, ok = r.counter(C.LLMLAT_READ_COUNT_RUN)
	runs, ok2 := r.counter(C.LLMLAT_READ_COUNT_RUNS)
	return run, runs, ok && ok2
}

// Format is the format read (InputAuto until the first bytes tell).
func (r *Reader) Format() Input {
	var out C.int32_t
	C.llmlat_reader_format(r.handle(), &out)
	r.keepAlive()
	return Input(out)
}

// Duration is the benchmark duration the input gives, in seconds; ok is
// false when it gives none.
func (r *Reader) Duration() (seconds float64, ok bool) {
	var out C.double
	st := C.llmlat_reader_duration(r.handle(), &out)
	r.keepAlive()
	return float64(out), st == C.LLMLAT_OK
}
