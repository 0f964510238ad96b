import { HttpProblem, PROBLEMS, type ProblemBody, type ProblemCode } from './errors.js';

type StatusOfCode<C extends ProblemCode> = (typeof PROBLEMS)[C]['status'];

/** A typed problem result, for failures that belong to one operation (unknown finding, conflict…). */
export function problemResult<C extends ProblemCode>(
  code: C,
  detail: string,
): { status: StatusOfCode<C>; contentType: 'application/problem+json'; body: ProblemBody } {
  const problem = new HttpProblem(code, detail);
  return { status: problem.status as StatusOfCode<C>, contentType: 'application/problem+json', body: problem.toBody() };
}
