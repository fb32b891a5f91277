package core

import (
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/truora/minidyn/types"
)

type indexType string

const (
	indexTypeGlobal indexType = "global"
	indexTypeLocal  indexType = "local"
)

type index struct {
	keySchema keySchema
	// entries holds one entry per indexed item, ordered by index key then primary key:
	// the order a Query walks. Kept sorted on every write (binary search and insert), so
	// a Query never sorts.
	entries    []indexEntry
	typ        indexType
	projection *types.Projection
	Table      *Table
	refs       map[string]string // primary key -> index key, for indexed items only
	createdAt  time.Time
}

// indexEntry is one item in an index: its index key and its primary key.
type indexEntry struct {
	indexKey string
	pk       string
}

func (e indexEntry) less(o indexEntry) bool {
	if e.indexKey != o.indexKey {
		return e.indexKey < o.indexKey
	}

	return e.pk < o.pk
}

func newIndex(t *Table, typ indexType, ks keySchema) *index {
	ks.Secondary = true

	return &index{
		keySchema: ks,
		entries:   []indexEntry{},
		typ:       typ,
		Table:     t,
		refs:      map[string]string{},
	}
}

func (i *index) Clear() {
	i.entries = []indexEntry{}
	i.refs = map[string]string{}
}

type indexSnapshot struct {
	entries []indexEntry
	refs    map[string]string
}

func (i *index) snapshot() indexSnapshot {
	refs := make(map[string]string, len(i.refs))
	maps.Copy(refs, i.refs)

	return indexSnapshot{entries: slices.Clone(i.entries), refs: refs}
}

func (i *index) restore(s indexSnapshot) {
	i.entries = s.entries
	i.refs = s.refs
}

// ProjectItem returns the attributes visible through this index's projection (ALL, KEYS_ONLY, INCLUDE).
// For ALL or unknown types, it returns a full shallow copy of the item.
func (i *index) ProjectItem(item map[string]*types.Item) map[string]*types.Item {
	if i == nil || i.projection == nil {
		return copyItem(item)
	}

	pt := ""
	if i.projection.ProjectionType != nil {
		pt = *i.projection.ProjectionType
	}

	switch pt {
	case "", "ALL":
		return copyItem(item)
	case "KEYS_ONLY":
		return i.projectKeysOnly(item)
	case "INCLUDE":
		return i.projectInclude(item)
	default:
		return copyItem(item)
	}
}

// projectsAll reports whether the index shows every attribute of its items (ALL, or no
// projection given).
func (i *index) projectsAll() bool {
	if i == nil || i.projection == nil || i.projection.ProjectionType == nil {
		return true
	}

	pt := *i.projection.ProjectionType

	return pt == "" || pt == "ALL"
}

func (i *index) projectKeysOnly(item map[string]*types.Item) map[string]*types.Item {
	out := make(map[string]*types.Item)
	maps.Copy(out, i.Table.KeySchema.getKeyItem(item))
	maps.Copy(out, i.keySchema.getKeyItem(item))

	return out
}

func (i *index) projectInclude(item map[string]*types.Item) map[string]*types.Item {
	out := i.projectKeysOnly(item)

	for _, namePtr := range i.projection.NonKeyAttributes {
		if namePtr == nil {
			continue
		}

		name := *namePtr
		if v, ok := item[name]; ok {
			out[name] = v
		}
	}

	return out
}

// search returns the position of e in entries, or where it would be inserted.
func (i *index) search(e indexEntry) int {
	return sort.Search(len(i.entries), func(n int) bool { return !i.entries[n].less(e) })
}

// set records that the item with primary key key has index key indexKey; an empty
// indexKey takes the item out of the index (sparse index: the item lacks a key attribute).
func (i *index) set(key, indexKey string) {
	old, indexed := i.refs[key]
	if indexed && old == indexKey {
		return
	}

	if indexed {
		e := indexEntry{indexKey: old, pk: key}
		if pos := i.search(e); pos < len(i.entries) && i.entries[pos] == e {
			i.entries = slices.Delete(i.entries, pos, pos+1)
		}

		delete(i.refs, key)
	}

	if indexKey == "" {
		return
	}

	e := indexEntry{indexKey: indexKey, pk: key}
	i.entries = slices.Insert(i.entries, i.search(e), e)
	i.refs[key] = indexKey
}

func (i *index) putData(key string, item map[string]*types.Item) error {
	indexKey, err := i.keySchema.GetKey(i.Table.AttributesDef, item)
	if err != nil {
		return err
	}

	i.set(key, indexKey)

	return nil
}

func (i *index) updateData(key string, item, oldItem map[string]*types.Item) error {
	return i.putData(key, item)
}

func (i *index) delete(key string, item map[string]*types.Item) error {
	i.set(key, "")

	return nil
}

// partition returns the entries whose index key belongs to the partition keyed by
// hashKey (as formatted by keySchema.GetKey), in index order. The range also holds entries
// of partitions whose key starts with hashKey + "."; callers check the item's hash key.
func (i *index) partition(hashKey string) []indexEntry {
	if i.keySchema.RangeKey == "" {
		lo := sort.Search(len(i.entries), func(n int) bool { return i.entries[n].indexKey >= hashKey })
		hi := lo
		for hi < len(i.entries) && i.entries[hi].indexKey == hashKey {
			hi++
		}

		return i.entries[lo:hi]
	}

	prefix := hashKey + keySeparator
	lo := sort.Search(len(i.entries), func(n int) bool { return i.entries[n].indexKey >= prefix })
	rest := i.entries[lo:]
	hi := sort.Search(len(rest), func(n int) bool { return !strings.HasPrefix(rest[n].indexKey, prefix) })

	return rest[:hi]
}

func (i *index) count() int64 {
	return int64(len(i.entries))
}
