package aar

// The disclosures of one AP2 hop (SD-JWT, RFC 9901 section 7.1 strictness, as core's ap2-disclosures.ts): each is
// `[salt, value]` (an array element, named by `{"...": digest}`) or `[salt, name, value]` (an object member, named
// from `_sd`); INVARIANT after a hop resolves: every disclosure is referenced exactly once, from a place of its kind,
// at most MandateMaxDepth deep. Attacker assumption: every byte is chosen by the attacker (a digest cycle would need
// a SHA-256 pre-image; each disclosure is still taken at most once).

import (
	"fmt"
	"sort"
	"strings"
)

type disclosure struct {
	index int
	value []any
}

type disclosureSet struct {
	byDigest map[string]disclosure
	used     map[string]bool
}

func parseDisclosures(texts []string, base string) (*disclosureSet, *mandateRefusal) {
	ds := &disclosureSet{byDigest: map[string]disclosure{}, used: map[string]bool{}}
	for i, text := range texts {
		path := fmt.Sprintf("%s/disclosures/%d", base, i)
		v, r := decodeB64JSON(text, path, "the disclosure", "disclosure_digest_mismatch")
		if r != nil {
			return nil, r
		}
		arr, ok := v.([]any)
		if !ok || (len(arr) != 2 && len(arr) != 3) {
			return nil, refuse(path, "disclosure_digest_mismatch", "a disclosure is [salt, value] or [salt, name, value]")
		}
		if _, ok := arr[0].(string); !ok {
			return nil, refuse(path, "disclosure_digest_mismatch", "a disclosure is [salt, value] or [salt, name, value]")
		}
		if len(arr) == 3 {
			name, ok := arr[1].(string)
			if !ok || name == "_sd" || name == "..." || name == "_sd_alg" {
				return nil, refuse(path, "disclosure_digest_mismatch", "a disclosure's claim name must be a string other than _sd, _sd_alg and ...")
			}
		}
		digest := MandateDigest(text)
		if _, dup := ds.byDigest[digest]; dup {
			return nil, refuse(path, "disclosure_digest_mismatch", "the same disclosure appears twice")
		}
		ds.byDigest[digest] = disclosure{i, arr}
	}
	return ds, nil
}

func (ds *disclosureSet) take(digest any, path string, arrayElement bool) ([]any, *mandateRefusal) {
	d, ok := digest.(string)
	if !ok {
		return nil, refuse(path, "disclosure_digest_mismatch", "a digest must be a string")
	}
	if ds.used[d] {
		return nil, refuse(path, "disclosure_digest_mismatch", "a digest is referenced twice")
	}
	found, ok := ds.byDigest[d]
	if !ok {
		return nil, nil
	}
	ds.used[d] = true
	if (len(found.value) == 2) != arrayElement {
		return nil, refuse(path, "disclosure_digest_mismatch", "an array element digest names an object member disclosure, or the reverse")
	}
	return found.value, nil
}

func (ds *disclosureSet) unused() []int {
	out := []int{}
	for d, v := range ds.byDigest {
		if !ds.used[d] {
			out = append(out, v.index)
		}
	}
	sort.Ints(out)
	return out
}

func pointerToken(name string) string {
	return strings.ReplaceAll(strings.ReplaceAll(name, "~", "~0"), "/", "~1")
}

func (ds *disclosureSet) resolve(value any, path string, depth int) (any, *mandateRefusal) {
	if depth > MandateMaxDepth {
		return nil, refuse(path, "schema_invalid", "nested deeper than %d", MandateMaxDepth)
	}
	switch v := value.(type) {
	case []any:
		out := []any{}
		for i, item := range v {
			itemPath := fmt.Sprintf("%s/%d", path, i)
			if obj, ok := item.(map[string]any); ok {
				if digest, has := obj["..."]; has {
					if len(obj) != 1 {
						return nil, refuse(itemPath, "disclosure_digest_mismatch", "an array element digest object has one member")
					}
					disclosed, r := ds.take(digest, itemPath, true)
					if r != nil {
						return nil, r
					}
					if disclosed != nil {
						resolved, r := ds.resolve(disclosed[1], itemPath, depth+1)
						if r != nil {
							return nil, r
						}
						out = append(out, resolved)
					}
					continue
				}
			}
			resolved, r := ds.resolve(item, itemPath, depth+1)
			if r != nil {
				return nil, r
			}
			out = append(out, resolved)
		}
		return out, nil
	case map[string]any:
		if _, has := v["..."]; has {
			return nil, refuse(path+"/...", "disclosure_digest_mismatch", "the member ... is allowed only as an array element digest")
		}
		out := map[string]any{}
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if k == "_sd" || k == "_sd_alg" {
				continue
			}
			resolved, r := ds.resolve(v[k], path+"/"+pointerToken(k), depth+1)
			if r != nil {
				return nil, r
			}
			out[k] = resolved
		}
		if sd, has := v["_sd"]; has && sd != nil {
			list, ok := sd.([]any)
			if !ok {
				return nil, refuse(path+"/_sd", "disclosure_digest_mismatch", "_sd must be an array of digests")
			}
			for i, digest := range list {
				itemPath := fmt.Sprintf("%s/_sd/%d", path, i)
				disclosed, r := ds.take(digest, itemPath, false)
				if r != nil {
					return nil, r
				}
				if disclosed == nil {
					continue
				}
				name := disclosed[1].(string)
				if _, exists := out[name]; exists {
					return nil, refuse(itemPath, "disclosure_digest_mismatch", "the claim %s is disclosed and also plain", name)
				}
				resolved, r := ds.resolve(disclosed[2], path+"/"+pointerToken(name), depth+1)
				if r != nil {
					return nil, r
				}
				out[name] = resolved
			}
		}
		return out, nil
	default:
		return value, nil
	}
}
