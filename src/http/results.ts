import { HttpProblem, type ProblemCode } from './errors.js';
import type { components } from '../../generated/openapi.js';
import { PROBLEMS } from './errors.js';

type Problem = components['schemas']['Problem'];
type StatusOfCode<C extends ProblemCode> = (typeof PROBLEMS)[C]['status'];

/** A typed problem result, for failures that belong to one operation (unknown finding, conflict…). */
export function problemResult<C extends ProblemCode>(
  code: C,
  detail: string,
): { status: StatusOfCode<C>; contentType: 'application/problem+json'; body: Problem } {
  const problem = new HttpProblem(code, detail);
  return { status: problem.status as StatusOfCode<C>, contentType: 'application/problem+json', body: problem.toBody() as Problem };
}
