import { isMissing } from '../src/common/missing.js';
import { Problem } from '../src/common/problems.js';
import type { Deps } from '../src/ports/deps.js';
import type { Input, Result } from '../src/operations/contract.js';

/** GET /{tenant}/api/explain/{finding_id}: the finding, its signal and its source records (levels 1 and 2). */
export async function explainFinding(input: Input<'explainFinding'>, deps: Deps): Promise<Result<'explainFinding'>> {
  const { tenant, finding_id: findingId } = input.path;
  const explanation = await deps.explanations.finding(deps.tenants.resolve(tenant), findingId, input.query.locale ?? 'en');
  if (isMissing(explanation)) throw new Problem('not-found', `tenant "${tenant}" has no finding "${findingId}"`);
  if ('malformed' in explanation) throw new Problem('not-found', `finding "${findingId}" of tenant "${tenant}" cannot be explained: ${explanation.malformed}`);
  return { status: 200, body: { explanation } };
}
