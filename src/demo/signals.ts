import type { EntityType } from './gold.js';

/** Comparison operators of a signal contract (docs/signal-language.md). */
export type Operator = '=' | '!=' | '<' | '<=' | '>' | '>=' | 'in' | 'not_in' | 'is_null' | 'not_null' | 'like';

/** A literal value in a contract. */
export type Literal = string | number | boolean;

/** One condition: `column op value`. */
export interface Condition {
  column: string;
  op: Operator;
  value?: Literal | readonly Literal[];
}

/** Finding severity levels. */
export type Severity = 'high' | 'medium' | 'low';

/** A severity rule; the last rule of a list has no `when`. */
export interface SeverityRule {
  level: Severity;
  when?: Condition;
}

/** Text in the three languages, all present in AFS files. */
export interface AfsText {
  en: string;
  de: string;
  fr: string;
}

/** The contract of a signal. */
export interface SignalContract {
  entity_type: EntityType;
  source: string;
  entity_id: string;
  time_bucket?: string;
  money_at_risk?: string;
  where?: readonly Condition[];
  severity: readonly SeverityRule[];
  evidence?: readonly string[];
}

/** A signal definition (`signals/probe_*.yaml`). */
export interface SignalDefinition {
  probe_id: string;
  type: 'signal';
  name: AfsText;
  description?: AfsText;
  contract: SignalContract;
}

/** The demo signals, in the order findings are numbered. The first is the example of docs/signal-language.md. */
export const SIGNALS: readonly SignalDefinition[] = [
  {
    probe_id: 'probe_unbilled_cases',
    type: 'signal',
    name: { en: 'Discharged cases not yet billed', de: 'Entlassene, noch nicht abgerechnete Fälle', fr: 'Cas sortis non encore facturés' },
    description: {
      en: 'Cases closed or discharged without a billing event, ranked by expected amount.',
      de: 'Abgeschlossene oder entlassene Fälle ohne Abrechnung, nach erwartetem Betrag.',
      fr: 'Cas clôturés ou sortis sans facturation, classés par montant attendu.',
    },
    contract: {
      entity_type: 'Case',
      source: 'gold_cases',
      entity_id: 'case_id',
      time_bucket: 'discharged_on',
      money_at_risk: 'expected_amount',
      where: [
        { column: 'billed', op: '=', value: 0 },
        { column: 'status', op: 'in', value: ['closed', 'discharged'] },
      ],
      severity: [
        { level: 'high', when: { column: 'expected_amount', op: '>=', value: 10000 } },
        { level: 'medium', when: { column: 'expected_amount', op: '>=', value: 1000 } },
        { level: 'low' },
      ],
      evidence: ['case_id', 'discharged_on', 'expected_amount'],
    },
  },
  {
    probe_id: 'probe_late_billing',
    type: 'signal',
    name: { en: 'Cases billed late', de: 'Verspätet abgerechnete Fälle', fr: 'Cas facturés en retard' },
    description: {
      en: 'Invoices sent more than 30 days after discharge; corrections without a case and cancelled invoices are left out.',
      de: 'Rechnungen, die mehr als 30 Tage nach dem Austritt versandt wurden; Korrekturen ohne Fall und stornierte Rechnungen ausgenommen.',
      fr: 'Factures envoyées plus de 30 jours après la sortie ; corrections sans cas et factures annulées exclues.',
    },
    contract: {
      entity_type: 'BillingEvent',
      source: 'gold_billing_events',
      entity_id: 'billing_event_id',
      time_bucket: 'billed_on',
      money_at_risk: 'amount',
      where: [
        { column: 'days_to_bill', op: '>', value: 30 },
        { column: 'case_id', op: 'not_null' },
        { column: 'status', op: 'not_in', value: ['cancelled'] },
      ],
      severity: [
        { level: 'high', when: { column: 'days_to_bill', op: '>=', value: 90 } },
        { level: 'medium', when: { column: 'days_to_bill', op: '>=', value: 60 } },
        { level: 'low' },
      ],
      evidence: ['case_id', 'billed_on', 'days_to_bill', 'payer', 'amount'],
    },
  },
  {
    probe_id: 'probe_material_overuse',
    type: 'signal',
    name: { en: 'Material used above plan', de: 'Materialverbrauch über Plan', fr: 'Consommation de matériel supérieure au plan' },
    description: {
      en: 'Months in which a material was used at least 10 % above the expected quantity; implants are never rated low.',
      de: 'Monate, in denen ein Material mindestens 10 % über der erwarteten Menge verbraucht wurde; Implantate nie tief eingestuft.',
      fr: 'Mois où un matériel a été consommé au moins 10 % au-dessus de la quantité prévue ; les implants ne sont jamais classés bas.',
    },
    contract: {
      entity_type: 'Material',
      source: 'gold_materials',
      entity_id: 'material_id',
      time_bucket: 'month',
      money_at_risk: 'overuse_chf',
      where: [
        { column: 'overuse_pct', op: '>=', value: 10 },
        { column: 'quantity_expected', op: '>', value: 0 },
      ],
      severity: [
        { level: 'high', when: { column: 'overuse_chf', op: '>=', value: 5000 } },
        { level: 'medium', when: { column: 'category', op: 'like', value: 'implant%' } },
        { level: 'low' },
      ],
      evidence: ['month', 'category', 'quantity_used', 'quantity_expected', 'overuse_pct', 'overuse_chf'],
    },
  },
  {
    probe_id: 'probe_cost_centre_overrun',
    type: 'signal',
    name: { en: 'Cost centre over budget', de: 'Kostenstelle über Budget', fr: 'Centre de coûts au-dessus du budget' },
    description: {
      en: 'Monthly actual costs more than 5 % over budget in clinical and service cost centres.',
      de: 'Monatliche Istkosten mehr als 5 % über Budget in klinischen und Dienstleistungs-Kostenstellen.',
      fr: 'Coût réel mensuel dépassant le budget de plus de 5 % dans les centres de coûts cliniques et de services.',
    },
    contract: {
      entity_type: 'CostCentre',
      source: 'gold_cost_centres',
      entity_id: 'cost_centre_id',
      time_bucket: 'month',
      money_at_risk: 'variance_chf',
      where: [
        { column: 'variance_pct', op: '>', value: 5 },
        { column: 'budget_chf', op: '>=', value: 20000 },
        { column: 'department', op: '!=', value: 'Administration' },
      ],
      severity: [
        { level: 'high', when: { column: 'variance_pct', op: '>=', value: 20 } },
        { level: 'medium', when: { column: 'variance_pct', op: '>=', value: 10 } },
        { level: 'low' },
      ],
      evidence: ['month', 'budget_chf', 'actual_chf', 'variance_pct'],
    },
  },
];
