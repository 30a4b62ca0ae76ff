/** Ratios between two targets of one run, and their spread over the paired rounds: median, min to max. */

export const round = (n: number, digits = 2) => +n.toFixed(digits);

/** `of` over `to`; null when `to` is 0. */
export function ratio(of: number, to: number): number | null {
  return to > 0 ? round(of / to, 2) : null;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] ?? 0) : round(((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2, 2);
}

export function spread(ratios: (number | null)[]) {
  const values = ratios.filter((v): v is number => v !== null);
  return { values, median: median(values), min: Math.min(...values), max: Math.max(...values) };
}
