/** Small display helpers shared by the views. */
export function usd(value: unknown): string {
  return typeof value === 'number' ? `$${value.toFixed(value < 0.01 ? 4 : 2)}` : '–';
}

export function when(iso: unknown): string {
  if (typeof iso !== 'string') return '–';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString();
}

export function pretty(value: unknown): string {
  return JSON.stringify(value, null, 2);
}
