package minitia

import (
	"context"
	"log/slog"

	"cosmossdk.io/log"
)

// sdkLogger hands the SDK's and CometBFT's logs to slog. Their Info lines (a line a block)
// become Debug, so a chain at 10 blocks a second does not flood a test's log.
type sdkLogger struct{ l *slog.Logger }

func newSDKLogger(l *slog.Logger) log.Logger { return sdkLogger{l: l} }

func (s sdkLogger) Info(msg string, kv ...any) {
	s.l.Log(context.Background(), slog.LevelDebug, msg, kv...)
}
func (s sdkLogger) Warn(msg string, kv ...any)  { s.l.Warn(msg, kv...) }
func (s sdkLogger) Error(msg string, kv ...any) { s.l.Error(msg, kv...) }
func (s sdkLogger) Debug(msg string, kv ...any) {}
func (s sdkLogger) With(kv ...any) log.Logger   { return sdkLogger{l: s.l.With(kv...)} }
func (s sdkLogger) Impl() any                   { return s.l }
