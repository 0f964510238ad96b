import { expect } from 'chai';
import { buildNarrativePrompt } from '../../src/narrative/prompt.js';
import { firstSentences } from '../../src/narrative/sentences.js';

describe('narrative: sentences', () => {
  it('keeps the first 4 sentences of an English answer and folds line breaks', () => {
    const text = 'Case C-1 was discharged on Oct. 12.\nMr. Smith did not bill it, i.e. nobody did.\n\nIt is worth CHF 12.5 thousand. Four! Five? Six.';
    expect(firstSentences(text, 'en')).to.equal('Case C-1 was discharged on Oct. 12. Mr. Smith did not bill it, i.e. nobody did. It is worth CHF 12.5 thousand. Four!');
  });

  it('keeps German ordinal dates and abbreviations inside their sentence', () => {
    const text = 'Am 12. Oktober wurde der Fall entlassen. Dr. Meier bzw. das Team, z. B. die Pflege, war beteiligt. Drei. Vier. Fünf.';
    expect(firstSentences(text, 'de')).to.equal('Am 12. Oktober wurde der Fall entlassen. Dr. Meier bzw. das Team, z. B. die Pflege, war beteiligt. Drei. Vier.');
  });

  it('splits French sentences ending in ! and ? with their spaces', () => {
    expect(firstSentences('M. Dupont a signé. Montant : 12,5 CHF ! Pourquoi ? Voilà. Cinq.', 'fr')).to.equal('M. Dupont a signé. Montant : 12,5 CHF ! Pourquoi ? Voilà.');
  });

  it('leaves an answer of 3 sentences whole', () => {
    expect(firstSentences('One. Two. Three.', 'en')).to.equal('One. Two. Three.');
  });
});

describe('narrative: prompt', () => {
  it('cuts long evidence and names the language', () => {
    const finding = { probe_id: 'probe_x', entity_type: 'Case', entity_id: 'C-1', time_bucket: null, severity: 'low', money_at_risk: 0, evidence: 'x'.repeat(10_000) };
    const prompt = buildNarrativePrompt(finding, null, [], 'de');
    expect(prompt.system).to.match(/German/);
    expect(prompt.user.length).to.be.below(5000);
    expect(prompt.user).to.include('"signal": null');
  });
});
