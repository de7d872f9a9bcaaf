package vectors

import "container/list"

// lru keeps the most recently used vectors up to a count. Not safe for
// concurrent use: Cache holds its lock around it.
type lru struct {
	max   int
	order *list.List // of *lruEntry, most recent first
	at    map[[32]byte]*list.Element
}

type lruEntry struct {
	key [32]byte
	vec []float32
}

func newLRU(max int) *lru {
	return &lru{max: max, order: list.New(), at: map[[32]byte]*list.Element{}}
}

func (l *lru) get(key [32]byte) ([]float32, bool) {
	e, ok := l.at[key]
	if !ok {
		return nil, false
	}
	l.order.MoveToFront(e)
	return e.Value.(*lruEntry).vec, true
}

func (l *lru) put(key [32]byte, vec []float32) {
	if e, ok := l.at[key]; ok {
		e.Value.(*lruEntry).vec = vec
		l.order.MoveToFront(e)
		return
	}
	l.at[key] = l.order.PushFront(&lruEntry{key, vec})
	if l.order.Len() > l.max {
		last := l.order.Back()
		l.order.Remove(last)
		delete(l.at, last.Value.(*lruEntry).key)
	}
}
