import { DRGS, PAYERS, type DrgSeed } from './content.js';
import { addDays, daysBetween, PERIOD_END } from './dates.js';
import { roundMoney, type Random } from './random.js';
import type { Row } from './sqlite.js';

/** Gold rows about cases: the cases, their cost lines and their billing events. */
export interface CaseRows {
  cases: Row[];
  caseCosts: Row[];
  billingEvents: Row[];
}

interface CaseAnchor {
  drg: string;
  admittedOn: string;
  lengthOfStay: number;
  status: 'closed' | 'discharged';
  expectedAmount: number;
  /** Days from discharge to invoice; null leaves the case unbilled. */
  daysToBill: number | null;
}

/** Fixed first cases: C-100001..3 are unbilled (high, medium, low); the next ones billed late by 95, 64, 41 days. */
const ANCHORS: readonly CaseAnchor[] = [
  { drg: 'I47B', admittedOn: '2026-10-05', lengthOfStay: 7, status: 'discharged', expectedAmount: 18450.5, daysToBill: null },
  { drg: 'F62C', admittedOn: '2026-09-12', lengthOfStay: 8, status: 'closed', expectedAmount: 8720.4, daysToBill: null },
  { drg: 'G67D', admittedOn: '2026-08-30', lengthOfStay: 1, status: 'closed', expectedAmount: 640.8, daysToBill: null },
  { drg: 'F24B', admittedOn: '2026-03-02', lengthOfStay: 3, status: 'closed', expectedAmount: 14210.25, daysToBill: 12 },
  { drg: 'I44B', admittedOn: '2026-02-09', lengthOfStay: 6, status: 'closed', expectedAmount: 17980.6, daysToBill: 95 },
  { drg: 'B70F', admittedOn: '2026-04-14', lengthOfStay: 11, status: 'closed', expectedAmount: 11630.9, daysToBill: 64 },
  { drg: 'E65C', admittedOn: '2026-05-20', lengthOfStay: 5, status: 'closed', expectedAmount: 8355.35, daysToBill: 41 },
];

const PATIENT_CLASSES = ['general', 'general', 'general', 'general', 'general', 'semi_private', 'semi_private', 'private'];

const COST_LINES: readonly { type: string; costCentreId: string; share: number }[] = [
  { type: 'Physicians', costCentreId: 'CASE', share: 0.24 },
  { type: 'Nursing', costCentreId: 'KST-5100', share: 0.31 },
  { type: 'Implants', costCentreId: 'KST-7100', share: 0.18 },
  { type: 'Drugs', costCentreId: 'KST-3300', share: 0.07 },
  { type: 'Laboratory', costCentreId: 'KST-3100', share: 0.05 },
  { type: 'Radiology', costCentreId: 'KST-3200', share: 0.06 },
  { type: 'Hotel', costCentreId: 'KST-2100', share: 0.09 },
];

/** Generates `count` cases (at least the anchors) with cost lines and billing events. */
export function generateCaseRows(random: Random, count: number): CaseRows {
  const baseRate = random.amount(10300, 10900);
  const cases: Row[] = [];
  const caseCosts: Row[] = [];
  const billingEvents: Row[] = [];
  const nextEventId = counter('BE-', 500001);
  const nextCostLineId = counter('CL-', 1000001);
  for (let index = 0; index < Math.max(count, ANCHORS.length); index++) {
    const anchor = ANCHORS[index] ?? randomCase(random, baseRate);
    const drg = findDrg(anchor.drg);
    const caseId = `C-${100001 + index}`;
    const dischargedOn = addDays(anchor.admittedOn, anchor.lengthOfStay);
    const isOpen = dischargedOn > PERIOD_END;
    const billed = !isOpen && anchor.daysToBill !== null && addDays(dischargedOn, anchor.daysToBill) <= PERIOD_END;
    cases.push({
      case_id: caseId,
      patient_class: anchor.lengthOfStay === 0 ? 'outpatient' : random.pick(PATIENT_CLASSES),
      admitted_on: anchor.admittedOn,
      discharged_on: isOpen ? null : dischargedOn,
      status: isOpen ? 'open' : anchor.status,
      billed: billed ? 1 : 0,
      expected_amount: anchor.expectedAmount,
      cost_centre_id: drg.costCentreId,
      drg_code: drg.code,
      cost_weight: drg.costWeight,
      length_of_stay: anchor.lengthOfStay,
    });
    const lineCount = index === 0 ? 5 : random.int(2, 6);
    for (const line of COST_LINES.slice(0, lineCount)) {
      caseCosts.push({
        cost_line_id: nextCostLineId(),
        case_id: caseId,
        cost_date: addDays(anchor.admittedOn, random.int(0, anchor.lengthOfStay)),
        cost_type: line.type,
        cost_centre_id: line.costCentreId === 'CASE' ? drg.costCentreId : line.costCentreId,
        amount_chf: roundMoney(anchor.expectedAmount * line.share * (0.8 + random.next() * 0.4)),
      });
    }
    if (billed && anchor.daysToBill !== null) {
      const rejected = index >= ANCHORS.length && random.chance(0.05);
      billingEvents.push(billingEvent(random, nextEventId(), caseId, dischargedOn, anchor, rejected ? 'rejected' : undefined));
      if (rejected) {
        const rebilled = { ...anchor, daysToBill: anchor.daysToBill + random.int(10, 40) };
        if (addDays(dischargedOn, rebilled.daysToBill) <= PERIOD_END) {
          billingEvents.push(billingEvent(random, nextEventId(), caseId, dischargedOn, rebilled, 'submitted'));
        }
      }
    }
    if (index % 97 === 50) billingEvents.push(correctionEvent(random, nextEventId(), dischargedOn));
  }
  return { cases, caseCosts, billingEvents };
}

function randomCase(random: Random, baseRate: number): CaseAnchor {
  const drg = random.pick(DRGS);
  const admittedOn = random.chance(0.04) ? addDays(PERIOD_END, -random.int(0, 5)) : addDays('2026-01-02', random.int(0, 300));
  const lengthOfStay = random.chance(0.06) ? 0 : Math.max(1, Math.round(drg.costWeight * random.int(2, 7))) + (admittedOn > '2026-10-25' ? 7 : 0);
  const roll = random.next();
  const daysToBill = roll < 0.04 ? null
    : roll < 0.09 ? random.int(90, 150)
    : roll < 0.16 ? random.int(60, 89)
    : roll < 0.32 ? random.int(31, 59)
    : random.int(4, 30);
  return {
    drg: drg.code,
    admittedOn,
    lengthOfStay,
    status: random.chance(0.7) ? 'closed' : 'discharged',
    expectedAmount: roundMoney(drg.costWeight * baseRate * (0.8 + random.next() * 0.45)),
    daysToBill,
  };
}

function billingEvent(random: Random, id: string, caseId: string, dischargedOn: string, anchor: CaseAnchor, status?: string): Row {
  const days = anchor.daysToBill ?? 0;
  const billedOn = addDays(dischargedOn, days);
  const settled = daysBetween(billedOn, PERIOD_END) > 30;
  return {
    billing_event_id: id,
    case_id: caseId,
    billed_on: billedOn,
    amount: roundMoney(anchor.expectedAmount * (0.97 + random.next() * 0.06)),
    days_to_bill: days,
    payer: random.pick(PAYERS),
    status: status ?? (random.chance(0.03) ? 'cancelled' : settled ? 'paid' : 'submitted'),
    invoice_type: 'SwissDRG',
  };
}

/** A manual correction has no case: `case_id` NULL keeps it out of probe_late_billing. */
function correctionEvent(random: Random, id: string, anchorDate: string): Row {
  const billedOn = anchorDate <= PERIOD_END ? anchorDate : PERIOD_END;
  return {
    billing_event_id: id,
    case_id: null,
    billed_on: billedOn,
    amount: roundMoney(-random.amount(50, 900)),
    days_to_bill: random.int(35, 120),
    payer: random.pick(PAYERS),
    status: 'submitted',
    invoice_type: 'Correction',
  };
}

function findDrg(code: string): DrgSeed {
  const found = DRGS.find((drg) => drg.code === code);
  if (!found) throw new Error(`unknown DRG ${code}`);
  return found;
}

function counter(prefix: string, start: number): () => string {
  let next = start;
  return () => `${prefix}${next++}`;
}
