import { isScalar, type Node } from 'yaml';
import {
  DEFINITION_KINDS,
  MAX_PROBE_ID_LENGTH,
  PROBE_ID_PATTERN,
  kindOfProbeId,
  type CheckedSignal,
  type DefinitionType,
  type GoldSchema,
  type SignalError,
} from './definition-rules.js';
import { parseYamlSafely, signalError } from './safe-yaml.js';
import { checkGoldReferences, checkSignalContract } from './signal-contract-check.js';
import { YamlView } from './yaml-view.js';

/** What the checker found: the problems, the definition's type and its line when known, and the signal when it is one and valid. */
export interface DefinitionCheck {
  errors: SignalError[];
  type: DefinitionType | null;
  typeLine: number | null;
  signal: CheckedSignal | null;
}

const TOP_LEVEL_KEYS = ['probe_id', 'type', 'name', 'description', 'contract'] as const;
const TYPES = DEFINITION_KINDS.map((kind) => kind.type);

/**
 * Checks a definition's YAML: the fields common to all types, a signal's contract in full, and, with `gold`, that
 * a signal's source table and columns exist in that tenant's Gold tables. Never throws on bad input.
 */
export function checkDefinition(text: string, gold: GoldSchema | null = null): DefinitionCheck {
  const parsed = parseYamlSafely(text);
  if (parsed.doc === null) return { errors: parsed.errors, type: null, typeLine: null, signal: null };
  const view = new YamlView(parsed.doc, parsed.lineOf);
  const root = view.root();
  const top = view.map('(document)', root, null, 'a mapping with probe_id, type, name and contract');
  if (top === null) return { errors: [signalError(null, view.lineOf(root), 'the document must be a mapping with probe_id, type, name and contract')], type: null, typeLine: null, signal: null };
  const members = view.members(null, top, TOP_LEVEL_KEYS);

  const probeId = view.text('probe_id', view.value(members.get('probe_id')), top, true);
  if (probeId !== null && (probeId.length > MAX_PROBE_ID_LENGTH || !PROBE_ID_PATTERN.test(probeId))) {
    view.fail('probe_id', [view.value(members.get('probe_id'))], `"${probeId.slice(0, 40)}" does not match ^(probe_|assessment_|hyp_|diag_)[a-z][a-z0-9_]*$`);
  }
  const typeNode = view.value(members.get('type'));
  const typeText = view.text('type', typeNode, top, true);
  let type: DefinitionType | null = null;
  if (typeText !== null) {
    if ((TYPES as readonly string[]).includes(typeText)) type = typeText as DefinitionType;
    else view.fail('type', [typeNode], `unknown type "${typeText.slice(0, 40)}"; allowed: ${TYPES.join(', ')}`);
  }
  if (type !== null && probeId !== null && PROBE_ID_PATTERN.test(probeId)) {
    const expected = kindOfProbeId(probeId);
    if (expected !== undefined && expected.type !== type) {
      view.fail('type', [typeNode], `is ${type} but probe_id "${probeId}" starts with ${expected.prefix}, the prefix of a ${expected.type}`);
    }
  }
  checkLocalizedText(view, 'name', members.get('name')?.value, top, true);
  checkLocalizedText(view, 'description', members.get('description')?.value, top, false);

  const contractNode = view.value(members.get('contract'));
  const contract = view.map('contract', contractNode, top);
  let signal: CheckedSignal | null = null;
  if (contract !== null && type === 'signal') {
    const checked = checkSignalContract(view, contract);
    if (checked !== null && probeId !== null && view.errors.length === 0) {
      signal = { probe_id: probeId, ...checked.signal };
      if (gold !== null) checkGoldReferences(view, gold, checked);
    }
  }
  const errors = view.errors;
  return { errors, type, typeLine: view.lineOf(typeNode), signal: errors.length === 0 ? signal : null };
}

function checkLocalizedText(view: YamlView, path: string, raw: unknown, parent: Node, required: boolean): void {
  const node = view.resolve(raw);
  if (node === null || (isScalar(node) && node.value === null)) {
    if (required) view.fail(path, [parent], 'is required (a mapping with en, de and fr)');
    return;
  }
  const map = view.map(path, node, parent, 'a mapping with en, de and fr');
  if (map === null) return;
  const languages = view.members(path, map, ['en', 'de', 'fr']);
  for (const language of ['en', 'de', 'fr']) {
    const value = view.text(`${path}.${language}`, view.value(languages.get(language)), map, true);
    if (value !== null && value.trim() === '') view.fail(`${path}.${language}`, [view.value(languages.get(language))], 'must not be empty');
  }
}
