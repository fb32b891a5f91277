// Package domain holds the Pick'Em types, error codes and pure rules (validation, lock
// checks, scoring, ranking). It imports neither the AWS SDK nor GraphQL.
package domain

import (
	"errors"
	"fmt"
)

// Code classifies an error for clients. It is sent as extensions.code.
type Code string

// Error codes. Every error a client sees carries one of them.
const (
	CodeUnauthenticated Code = "UNAUTHENTICATED"
	CodeForbidden       Code = "FORBIDDEN"
	CodeNotFound        Code = "NOT_FOUND"
	CodeBadUserInput    Code = "BAD_USER_INPUT"
	CodeLocked          Code = "LOCKED"
	CodeConflict        Code = "CONFLICT"
	CodeUnavailable     Code = "UNAVAILABLE"
	CodeInternal        Code = "INTERNAL"
)

// Error is an error with a code and a message that is safe to show to a client.
type Error struct {
	Code    Code
	Message string
	Err     error // optional cause; never shown to clients
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Err)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error with code and a formatted safe message.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the code of err: the code of the first *Error in its chain, or
// CodeInternal for any other non-nil error, or "" for nil.
func ErrorCode(err error) Code {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return CodeInternal
}

// BadInput is shorthand for Errorf(CodeBadUserInput, ...).
func BadInput(format string, args ...any) *Error {
	return Errorf(CodeBadUserInput, format, args...)
}
