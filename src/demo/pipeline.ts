/** A node of the pipeline graph. */
export interface GraphNode {
  id: string;
  label: string;
  layer: 'bronze' | 'silver' | 'gold';
}

/** The bronze → silver → gold pipeline graph stored as `graph_json`. */
export interface PipelineGraph {
  nodes: GraphNode[];
  edges: { from: string; to: string }[];
}

/** The demo pipeline: source extracts, cleaned tables, then the Gold tables of the KLS. */
export function pipelineGraph(goldTables: readonly string[]): PipelineGraph {
  const nodes: GraphNode[] = [
    { id: 'bronze_his_cases', label: 'HIS case extract', layer: 'bronze' },
    { id: 'bronze_billing_invoices', label: 'Billing system invoices', layer: 'bronze' },
    { id: 'bronze_erp_materials', label: 'ERP material ledger', layer: 'bronze' },
    { id: 'bronze_finance_ledger', label: 'Finance general ledger', layer: 'bronze' },
    { id: 'silver_cases', label: 'Cases (cleaned)', layer: 'silver' },
    { id: 'silver_billing_events', label: 'Billing events (cleaned)', layer: 'silver' },
    { id: 'silver_materials', label: 'Materials (cleaned)', layer: 'silver' },
    { id: 'silver_cost_centres', label: 'Cost centres (cleaned)', layer: 'silver' },
    ...goldTables.map((table): GraphNode => ({ id: table, label: table, layer: 'gold' })),
  ];
  const feeds: Record<string, string[]> = {
    gold_cases: ['silver_cases'],
    gold_case_costs: ['silver_cases', 'silver_cost_centres'],
    gold_billing_events: ['silver_billing_events', 'silver_cases'],
    gold_materials: ['silver_materials'],
    gold_material_movements: ['silver_materials'],
    gold_material_stock: ['silver_materials'],
    gold_cost_centres: ['silver_cost_centres'],
  };
  const edges = [
    { from: 'bronze_his_cases', to: 'silver_cases' },
    { from: 'bronze_billing_invoices', to: 'silver_billing_events' },
    { from: 'bronze_erp_materials', to: 'silver_materials' },
    { from: 'bronze_finance_ledger', to: 'silver_cost_centres' },
    { from: 'bronze_erp_materials', to: 'silver_cost_centres' },
    ...goldTables.flatMap((table) => (feeds[table] ?? []).map((from) => ({ from, to: table }))),
  ];
  return { nodes, edges };
}

const escapeHtml = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** A self-contained HTML page (inline CSS and SVG, no scripts, no external URLs) drawing the graph. */
export function pipelineHtml(graph: PipelineGraph, title: string): string {
  const layers = ['bronze', 'silver', 'gold'] as const;
  const colours = { bronze: '#b87333', silver: '#8a8d91', gold: '#c9a227' };
  const position = new Map<string, { x: number; y: number }>();
  for (const [column, layer] of layers.entries()) {
    graph.nodes.filter((node) => node.layer === layer).forEach((node, row) => position.set(node.id, { x: 20 + column * 260, y: 40 + row * 56 }));
  }
  const height = 60 + Math.max(...layers.map((layer) => graph.nodes.filter((node) => node.layer === layer).length)) * 56;
  const edges = graph.edges.map((edge) => {
    const from = position.get(edge.from);
    const to = position.get(edge.to);
    if (!from || !to) return '';
    return `<path d="M${from.x + 200} ${from.y + 18} C${from.x + 230} ${from.y + 18} ${to.x - 30} ${to.y + 18} ${to.x} ${to.y + 18}" class="edge"/>`;
  });
  const nodes = graph.nodes.map((node) => {
    const at = position.get(node.id) ?? { x: 0, y: 0 };
    return `<g><rect x="${at.x}" y="${at.y}" width="200" height="36" rx="6" fill="${colours[node.layer]}"/>` +
      `<text x="${at.x + 100}" y="${at.y + 23}">${escapeHtml(node.label)}</text></g>`;
  });
  return [
    '<!DOCTYPE html>',
    '<html lang="en"><head><meta charset="utf-8">',
    `<title>${escapeHtml(title)}</title>`,
    '<style>body{font-family:Helvetica,Arial,sans-serif;margin:16px;color:#222}',
    'text{fill:#fff;font-size:12px;text-anchor:middle}.edge{fill:none;stroke:#999;stroke-width:1.5}</style>',
    '</head><body>',
    `<h1>${escapeHtml(title)}</h1>`,
    `<svg width="${20 + layers.length * 260}" height="${height}" viewBox="0 0 ${20 + layers.length * 260} ${height}" role="img" aria-label="pipeline graph">`,
    ...layers.map((layer, column) => `<text x="${120 + column * 260}" y="24" style="fill:#222;font-weight:bold">${layer}</text>`),
    ...edges, ...nodes,
    '</svg>',
    `<p>${graph.nodes.length} nodes, ${graph.edges.length} edges.</p>`,
    '</body></html>',
    '',
  ].join('\n');
}
