package bert

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"os"
)

// maxHeader bounds the safetensors JSON header: the format's own limit
// is 100 MB, and a BERT header is a few kilobytes.
const maxHeader = 100 << 20

// maxWeights bounds the bytes of float32 tensors read from one file: a
// BERT-large checkpoint is 1.3 GB, and a file claiming more is not a
// model this package is meant to run.
const maxWeights = 2 << 30

// dtypeSize is the byte size of an element of each safetensors dtype.
var dtypeSize = map[string]uint64{
	"BOOL": 1, "U8": 1, "I8": 1, "F8_E4M3": 1, "F8_E5M2": 1,
	"U16": 2, "I16": 2, "F16": 2, "BF16": 2,
	"U32": 4, "I32": 4, "F32": 4,
	"U64": 8, "I64": 8, "F64": 8,
}

// safetensors is an open safetensors file whose header has been checked:
// every tensor's dtype is known, its shape's size fits its byte range,
// and the range lies within the file. The format is an 8-byte
// little-endian header length, a JSON header naming each tensor's dtype,
// shape and byte range, then the raw data. Tensors are read one by one
// when taken, so that nothing is allocated before the whole model has
// been checked against the header.
type safetensors struct {
	path    string
	f       *os.File
	body    int64 // offset of the data after the header
	tensors map[string]tensorInfo
}

type tensorInfo struct {
	Dtype   string    `json:"dtype"`
	Shape   []int     `json:"shape"`
	Offsets [2]uint64 `json:"data_offsets"`
}

// openSafetensors opens path and checks its header; the caller closes it.
func openSafetensors(path string) (*safetensors, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := readHeader(path, f)
	if err != nil {
		f.Close()
		return nil, err
	}
	return st, nil
}

func readHeader(path string, f *os.File) (*safetensors, error) {
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	size := uint64(info.Size())
	var head [8]byte
	if _, err := io.ReadFull(f, head[:]); err != nil {
		return nil, fmt.Errorf("%s: too short for a safetensors file", path)
	}
	n := binary.LittleEndian.Uint64(head[:])
	if n > maxHeader || n > size-8 {
		return nil, fmt.Errorf("%s: header length %d does not fit the file", path, n)
	}
	raw := make([]byte, n)
	if _, err := io.ReadFull(f, raw); err != nil {
		return nil, fmt.Errorf("%s: header: %w", path, err)
	}
	var header map[string]json.RawMessage
	if err := json.Unmarshal(raw, &header); err != nil {
		return nil, fmt.Errorf("%s: header: %w", path, err)
	}
	st := &safetensors{path: path, f: f, body: int64(8 + n), tensors: map[string]tensorInfo{}}
	bodyLen := size - 8 - n
	for name, msg := range header {
		if name == "__metadata__" {
			continue
		}
		var t tensorInfo
		if err := json.Unmarshal(msg, &t); err != nil {
			return nil, fmt.Errorf("%s: tensor %s: %w", path, name, err)
		}
		if err := t.check(bodyLen); err != nil {
			return nil, fmt.Errorf("%s: tensor %s: %w", path, name, err)
		}
		st.tensors[name] = t
	}
	return st, nil
}

// check verifies that the tensor's dtype is known and that its shape's
// bytes, computed without overflow, are exactly its byte range within a
// body of bodyLen bytes.
func (t tensorInfo) check(bodyLen uint64) error {
	size, ok := dtypeSize[t.Dtype]
	if !ok {
		return fmt.Errorf("unknown dtype %q", t.Dtype)
	}
	bytes := size
	for _, d := range t.Shape {
		if d < 0 {
			return fmt.Errorf("shape %v has a negative size", t.Shape)
		}
		hi, lo := bits.Mul64(bytes, uint64(d))
		if hi != 0 || lo > bodyLen {
			return fmt.Errorf("shape %v is larger than the file", t.Shape)
		}
		bytes = lo
	}
	begin, end := t.Offsets[0], t.Offsets[1]
	if begin > end || end > bodyLen {
		return fmt.Errorf("byte range %d-%d lies outside the file's %d bytes of data", begin, end, bodyLen)
	}
	if end-begin != bytes {
		return fmt.Errorf("byte range %d-%d does not hold shape %v of %s", begin, end, t.Shape, t.Dtype)
	}
	return nil
}

// lookup finds a float32 tensor of the given shape, without reading it.
func (st *safetensors) lookup(name string, shape ...int) (string, tensorInfo, error) {
	t, ok := st.tensors[name]
	if !ok {
		name = "bert." + name // checkpoints saved from BertFor* models
		t, ok = st.tensors[name]
	}
	if !ok {
		return "", t, fmt.Errorf("tensor %s is missing", name)
	}
	if t.Dtype != "F32" {
		return "", t, fmt.Errorf("tensor %s is %s, want F32", name, t.Dtype)
	}
	if len(t.Shape) != len(shape) {
		return "", t, fmt.Errorf("tensor %s has shape %v, want %v", name, t.Shape, shape)
	}
	for i := range shape {
		if t.Shape[i] != shape[i] {
			return "", t, fmt.Errorf("tensor %s has shape %v, want %v", name, t.Shape, shape)
		}
	}
	return name, t, nil
}

// read returns a checked tensor's data.
func (st *safetensors) read(name string, t tensorInfo) ([]float32, error) {
	raw := make([]byte, t.Offsets[1]-t.Offsets[0])
	if _, err := st.f.ReadAt(raw, st.body+int64(t.Offsets[0])); err != nil {
		return nil, fmt.Errorf("tensor %s: %w", name, err)
	}
	data := make([]float32, len(raw)/4)
	for i := range data {
		data[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
	}
	return data, nil
}

// errTooLarge says a model's float32 tensors exceed maxWeights.
var errTooLarge = errors.New("the weights exceed the size this package reads")
