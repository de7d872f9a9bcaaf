package main

import (
	"context"
	"io"
)

func runCalibrate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return usageError{"calibrate: not built yet"}
}
