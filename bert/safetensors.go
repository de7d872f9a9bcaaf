package bert

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
)

// maxHeader bounds the safetensors JSON header: the format's own limit
// is 100 MB, and a BERT header is a few kilobytes.
const maxHeader = 100 << 20

// tensors holds the float32 tensors of one safetensors file by name.
// The format is an 8-byte little-endian header length, a JSON header
// naming each tensor's dtype, shape and byte range, then the raw data.
type tensors map[string]tensor

type tensor struct {
	shape []int
	data  []float32
}

func readSafetensors(path string) (tensors, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(raw) < 8 {
		return nil, fmt.Errorf("%s: too short for a safetensors file", path)
	}
	n := binary.LittleEndian.Uint64(raw)
	if n > maxHeader || 8+n > uint64(len(raw)) {
		return nil, fmt.Errorf("%s: header length %d does not fit the file", path, n)
	}
	var header map[string]json.RawMessage
	if err := json.Unmarshal(raw[8:8+n], &header); err != nil {
		return nil, fmt.Errorf("%s: header: %w", path, err)
	}
	body := raw[8+n:]
	out := tensors{}
	for name, msg := range header {
		if name == "__metadata__" {
			continue
		}
		var info struct {
			Dtype   string    `json:"dtype"`
			Shape   []int     `json:"shape"`
			Offsets [2]uint64 `json:"data_offsets"`
		}
		if err := json.Unmarshal(msg, &info); err != nil {
			return nil, fmt.Errorf("%s: tensor %s: %w", path, name, err)
		}
		if info.Dtype != "F32" {
			continue // position ids (I64) and the like: the encoder needs none
		}
		begin, end := info.Offsets[0], info.Offsets[1]
		count := 1
		for _, d := range info.Shape {
			count *= d
		}
		if begin > end || end > uint64(len(body)) || end-begin != uint64(4*count) {
			return nil, fmt.Errorf("%s: tensor %s: byte range %d-%d does not hold shape %v", path, name, begin, end, info.Shape)
		}
		data := make([]float32, count)
		for i := range data {
			data[i] = math.Float32frombits(binary.LittleEndian.Uint32(body[begin+uint64(4*i):]))
		}
		out[name] = tensor{shape: info.Shape, data: data}
	}
	return out, nil
}

// take returns the named tensor after checking its shape.
func (ts tensors) take(name string, shape ...int) ([]float32, error) {
	t, ok := ts[name]
	if !ok {
		t, ok = ts["bert."+name] // checkpoints saved from BertFor* models
	}
	if !ok {
		return nil, fmt.Errorf("tensor %s is missing", name)
	}
	if len(t.shape) != len(shape) {
		return nil, fmt.Errorf("tensor %s has shape %v, want %v", name, t.shape, shape)
	}
	for i := range shape {
		if t.shape[i] != shape[i] {
			return nil, fmt.Errorf("tensor %s has shape %v, want %v", name, t.shape, shape)
		}
	}
	return t.data, nil
}
