package env

import (
	"context"
	"errors"
	"io/fs"
	"syscall"
)

// wrap turns err into an *Error with a Code derived from it; nil stays nil
// and an *Error passes through unchanged.
func wrap(op, path string, err error) error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return err
	}
	return &Error{Code: codeFor(err), Op: op, Path: path, Err: err}
}

// codeFor classifies an error from the os, io/fs or context packages.
func codeFor(err error) Code {
	switch {
	case errors.Is(err, context.Canceled):
		return CodeAborted
	case errors.Is(err, context.DeadlineExceeded):
		return CodeTimeout
	case errors.Is(err, fs.ErrNotExist):
		return CodeNotFound
	case errors.Is(err, fs.ErrPermission):
		return CodePermissionDenied
	case errors.Is(err, fs.ErrExist):
		return CodeExists
	case errors.Is(err, syscall.EISDIR):
		return CodeIsDirectory
	case errors.Is(err, syscall.ENOTDIR):
		return CodeNotDirectory
	case errors.Is(err, syscall.ENAMETOOLONG), errors.Is(err, syscall.EINVAL), errors.Is(err, fs.ErrInvalid):
		return CodeInvalid
	case errors.Is(err, syscall.EFBIG):
		return CodeTooLarge
	default:
		return CodeIO
	}
}
