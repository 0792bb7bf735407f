package llmlat

// #include "llmlat.h"
import "C"

import (
	"io"
	"runtime/cgo"
	"unsafe"
)

// reportSink is what goReportWrite writes a streamed report's pieces to:
// the caller's writer, and the first failure, to hand back once the C
// call has returned.
type reportSink struct {
	w     io.Writer
	err   error
	panic interface{}
}

// sinkFailed is the status the piece callback returns to stop the report:
// any status other than LLMLAT_OK does, and the library returns it as is.
const sinkFailed = 1

//export goReportWrite
func goReportWrite(h C.uintptr_t, bytes unsafe.Pointer, n C.size_t) (status C.int32_t) {
	s := cgo.Handle(h).Value().(*reportSink)
	defer func() { // a panic must not unwind through the C frames
		if p := recover(); p != nil {
			s.panic = p
			status = sinkFailed
		}
	}()
	if _, err := s.w.Write(unsafe.Slice((*byte)(bytes), int(n))); err != nil {
		s.err = err
		return sinkFailed
	}
	return C.LLMLAT_OK
}
