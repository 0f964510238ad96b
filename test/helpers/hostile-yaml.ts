/** Definition texts that cost a careless YAML parser far more than their size suggests. */

/** Distinct keys of `width` base-36 digits, in order. */
function keys(count: number, width: number): string[] {
  return Array.from({ length: count }, (_, i) => i.toString(36).padStart(width, '0'));
}

/**
 * A definition whose contract is one flow mapping of `count` distinct short keys without values
 * (`{000,001,…}`): 35,000 keys make the ~137 KB text that kept the `yaml` package's duplicate-key check busy
 * for seconds, comparing each key with every earlier one.
 */
export function manyKeys(count: number, probeId = 'probe_keys'): string {
  return `probe_id: ${probeId}\ntype: signal\ncontract: {${keys(count, 3).join(',')}}\n`;
}

/** The largest text of the `manyKeys` kind whose save body `{probe_id, yaml}` stays within `bodyBytes` bytes of JSON. */
export function manyKeysBody(bodyBytes: number, probeId = 'probe_keys'): { probe_id: string; yaml: string } {
  const head = `probe_id: ${probeId}\ntype: signal\ncontract: {`;
  const overhead = Buffer.byteLength(JSON.stringify({ probe_id: probeId, yaml: `${head}}\n` }));
  // five bytes per key ("0000,"): as many as fit
  const count = Math.floor((bodyBytes - overhead) / 5);
  const yaml = `${head}${keys(count, 4).join(',')}}\n`;
  return { probe_id: probeId, yaml };
}

/** `count` flow lists nested ten deep (`[[[[[[[[[[1]]]]]]]]]]`): the slowest shape per character for the parser. */
export function nestedLists(count: number, probeId = 'probe_nested'): string {
  return `probe_id: ${probeId}\ntype: signal\ncontract: [${Array(count).fill('[[[[[[[[[[1]]]]]]]]]]').join(',')}]\n`;
}

/** The largest `nestedLists` text within `chars` characters. */
export function nestedListsWithin(chars: number, probeId = 'probe_nested'): string {
  const count = Math.floor((chars - nestedLists(0, probeId).length) / 22);
  return nestedLists(count, probeId);
}

/** A definition whose contract holds flow lists of 900 numbers each, more than `nodes` nodes in all (~2 characters a node). */
export function nodesOver(nodes: number, probeId = 'probe_nodes'): string {
  const list = `[${Array(900).fill('1').join(',')}]`;
  return `probe_id: ${probeId}\ntype: signal\ncontract: [${Array(Math.ceil(nodes / 900)).fill(list).join(',')}]\n`;
}
