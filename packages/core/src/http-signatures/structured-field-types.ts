/**
 * The RFC 8941 data model, tagged: an integer and a decimal stay distinct (`created=1.0` is a decimal, so it is not a
 * timestamp), and so do a string and a token (`alg=ed25519` is not `alg="ed25519"`).
 */
export type BareItem =
  | { type: 'integer'; value: number }
  | { type: 'decimal'; value: number }
  | { type: 'string'; value: string }
  | { type: 'token'; value: string }
  | { type: 'bytes'; value: Uint8Array }
  | { type: 'boolean'; value: boolean };

/** Ordered: serialization keeps the order in which parameters were parsed or inserted. */
export type Parameters = ReadonlyMap<string, BareItem>;

export interface Item {
  kind: 'item';
  value: BareItem;
  params: Parameters;
}

export interface InnerList {
  kind: 'inner-list';
  items: readonly Item[];
  params: Parameters;
}

/** Ordered, and (stricter than RFC 8941, which lets the last duplicate win) never parsed from duplicate keys. */
export type Dictionary = ReadonlyMap<string, Item | InnerList>;
