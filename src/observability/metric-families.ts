/**
 * Counters and histograms updated on every request, kept as plain numbers per label set and written in the
 * Prometheus text format at scrape time. prom-client validates and hashes a labels object on every update
 * (about a microsecond each, a dozen per request); here an update is one joined key, one map lookup and a few
 * additions. Label values must be bounded by the caller (they are: routes, catalog ids, fixed words).
 */
abstract class Family<Entry extends { labels: readonly string[] }> {
  protected readonly series = new Map<string, Entry>();

  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly string[],
  ) {}

  protected entry(labels: readonly string[], create: () => Entry): Entry {
    const key = labels.join('\u0001');
    let found = this.series.get(key);
    if (!found) {
      found = create();
      this.series.set(key, found);
    }
    return found;
  }

  protected header(type: string): string {
    return `# HELP ${this.name} ${escapeHelp(this.help)}\n# TYPE ${this.name} ${type}\n`;
  }

  protected labelText(labels: readonly string[], extra = ''): string {
    const pairs = this.labelNames.map((name, index) => `${name}="${escapeValue(labels[index] ?? '')}"`);
    if (extra) pairs.push(extra);
    return pairs.length === 0 ? '' : `{${pairs.join(',')}}`;
  }

  abstract render(): string;
}

export class CounterFamily extends Family<{ labels: readonly string[]; value: number }> {
  inc(labels: readonly string[], value = 1): void {
    this.entry(labels, () => ({ labels, value: 0 })).value += value;
  }

  render(): string {
    let text = this.header('counter');
    for (const { labels, value } of this.series.values())
      text += `${this.name}${this.labelText(labels)} ${value}\n`;
    return text;
  }
}

interface HistogramEntry {
  labels: readonly string[];
  /** Observations per bucket (not cumulative; summed when rendered). */
  counts: number[];
  sum: number;
  count: number;
}

export class HistogramFamily extends Family<HistogramEntry> {
  constructor(
    name: string,
    help: string,
    labelNames: readonly string[],
    private readonly buckets: readonly number[],
  ) {
    super(name, help, labelNames);
  }

  observe(labels: readonly string[], value: number): void {
    if (!Number.isFinite(value)) return;
    const entry = this.entry(labels, () => ({
      labels,
      counts: new Array<number>(this.buckets.length).fill(0),
      sum: 0,
      count: 0,
    }));
    let index = 0;
    while (index < this.buckets.length && value > (this.buckets[index] ?? Number.POSITIVE_INFINITY))
      index += 1;
    if (index < this.buckets.length) entry.counts[index] = (entry.counts[index] ?? 0) + 1;
    entry.sum += value;
    entry.count += 1;
  }

  render(): string {
    let text = this.header('histogram');
    for (const { labels, counts, sum, count } of this.series.values()) {
      let cumulative = 0;
      this.buckets.forEach((bound, index) => {
        cumulative += counts[index] ?? 0;
        text += `${this.name}_bucket${this.labelText(labels, `le="${bound}"`)} ${cumulative}\n`;
      });
      text += `${this.name}_bucket${this.labelText(labels, 'le="+Inf"')} ${count}\n`;
      text += `${this.name}_sum${this.labelText(labels)} ${sum}\n`;
      text += `${this.name}_count${this.labelText(labels)} ${count}\n`;
    }
    return text;
  }
}

const escapeValue = (value: string): string =>
  value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
const escapeHelp = (help: string): string => help.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
