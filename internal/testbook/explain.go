package testbook

import (
	"context"
	"testing/fstest"

	"github.com/textbook-rag/rag"
	"github.com/textbook-rag/rag/markdown"
)

// Explain is a small book for explaining a reader's selection: a
// glossary, a chapter on topics whose sections lead into passages a
// reader selects, and a chapter on sensors that uses "absolute" in
// another sense.
var Explain = fstest.MapFS{
	"glossary.md": {Data: []byte(`# Glossary

This glossary defines the terms the book uses.

## Latency

The time between a sensor reading and the action that it causes.

## Coordinate Frame

A set of axes attached to a body, in which positions are expressed.

## QoS

Quality of service: the delivery policies of a connection.
`)},
	"ros/topics.md": {Data: []byte(`# Topics

## Publishing

Nodes talk over named channels. A publisher never waits for its subscribers. Each message carries a header with a stamp.

The stamp is when the data was captured, not when it was published. Subscribers compare the stamp with the clock to measure the latency of the channel.

## Headers

Every header has three fields:

- **stamp**: when the data was captured by the driver
- **frame_id**: the coordinate frame the data is expressed in
- **seq**: a counter that older messages used

The frame_id names a frame that the transform tree knows.

## Delivery

**QoS** is the set of policies that decide how messages reach a subscriber. A reliable connection resends lost messages.
`)},
	"sensors/encoders.md": {Data: []byte(`# Encoders

## Kinds

An encoder reports how far a joint has turned.

- **Absolute**: knows the joint angle at power-up, without a homing run
- **Incremental**: counts ticks from wherever it started

Gear backlash hides small movements from both kinds.
`)},
}

// ExplainChunks is the Explain book as the chunker cuts it.
func ExplainChunks() ([]rag.Chunk, error) {
	_, chunks, err := markdown.Load(context.Background(), Explain, markdown.DefaultOptions())
	return chunks, err
}
