// references_digest (core's bundles/references-check.ts): `references` lists every part exactly once, in BundleParts
// order, with its schema, the path that serves it, and the SHA-256 of its RFC 8785 bytes as the bundle holds it now.
// A part edited after signing, or a list that omits, repeats or reorders a part, fails here.

package aar

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
)

// BundlePartDigest is the lowercase hex SHA-256 of the RFC 8785 bytes of a part (an absent part hashes `null`).
func BundlePartDigest(part any) (string, error) {
	if isUndefined(part) {
		part = nil
	}
	value, err := ToJSONValue(part)
	if err != nil {
		return "", err
	}
	b, err := Canonicalize(value)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

func bundlePartHref(bundleID, name string) string {
	return "/v1/bundles/" + bundleID + "/parts/" + name
}

func checkReferencesDigest(_ context.Context, b *bundleContext, _ VerifyBundleOptions) bundleOutcome {
	bundleID, ok := b.part("bundle_id").(string)
	if !ok {
		return bundleFail("the bundle has no `bundle_id`")
	}
	references, ok := b.part("references").([]any)
	if !ok {
		return bundleFail("the bundle has no `references` list")
	}
	if len(references) != len(BundleParts) {
		return bundleFail(fmt.Sprintf("`references` lists %d parts, not the %d of a bundle", len(references), len(BundleParts)))
	}
	for index, expected := range BundleParts {
		ref := references[index]
		at := fmt.Sprintf("/references/%d", index)
		if !isRecord(ref) || !strictEqual(get(ref, "name"), expected.Name) {
			return bundleFail(at + " does not name part `" + expected.Name + "`")
		}
		if !strictEqual(get(ref, "schema"), expected.Schema) {
			return bundleFail(at + " does not give schema `" + expected.Schema + "`")
		}
		if !strictEqual(get(ref, "href"), bundlePartHref(bundleID, expected.Name)) {
			return bundleFail(at + " href is not this bundle's part path")
		}
		part := b.part(expected.Name)
		if isUndefined(part) {
			return bundleFail("part `" + expected.Name + "` is missing")
		}
		digest, err := BundlePartDigest(part)
		if err != nil || !strictEqual(get(ref, "sha256"), digest) {
			return bundleFail("part `" + expected.Name + "` does not hash to its reference's sha256")
		}
	}
	return bundlePass(fmt.Sprintf("%d parts hash to their references", len(BundleParts)))
}
