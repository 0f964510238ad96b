/** One version's section of CHANGELOG.md (docs/versioning.md, "The CHANGELOG"). */
export interface ChangelogSection {
  version: string;
  /** `YYYY-MM-DD`, or null for the next version's section (`## 0.4.0 — Unreleased`). */
  date: string | null;
  /** 1-based line of the heading. */
  line: number;
  /** The section's entries (list items with their continuation lines), each under its `###` heading. */
  entries: { heading: string; text: string }[];
}

/** A version heading: `## 0.3.0 — 2026-11-24` or `## 0.4.0 — Unreleased`. */
export const SECTION_HEADING = /^## (\d+\.\d+\.\d+) — (\d{4}-\d{2}-\d{2}|Unreleased)$/;

/** The `###` heading under which breaking changes are listed. */
export const BREAKING_HEADING = 'Breaking';

/** Reads CHANGELOG.md's version sections, newest first as written. */
export function parseChangelog(text: string): ChangelogSection[] {
  const sections: ChangelogSection[] = [];
  let section: ChangelogSection | undefined;
  let heading = '';
  let entry: { heading: string; text: string } | undefined;
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.startsWith('## ')) {
      const match = SECTION_HEADING.exec(line);
      section = match === null ? undefined : { version: match[1]!, date: match[2] === 'Unreleased' ? null : match[2]!, line: i + 1, entries: [] };
      if (section !== undefined) sections.push(section);
      heading = '';
      entry = undefined;
    } else if (line.startsWith('### ')) {
      heading = line.slice(4).trim();
      entry = undefined;
    } else if (section !== undefined && /^[-*] /.test(line)) {
      entry = { heading, text: line.slice(2) };
      section.entries.push(entry);
    } else if (entry !== undefined && /^\s+\S/.test(line)) {
      entry.text += ` ${line.trim()}`;
    } else {
      entry = undefined;
    }
  }
  return sections;
}

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** True when `text` names `token` as a whole: not as part of a longer name or path (`GET /a` is not in `GET /a/{b}`). */
export function mentions(text: string, token: string): boolean {
  return new RegExp(`(?<![\\w{/-])${escape(token)}(?![\\w/{-])`).test(text);
}
