import { RecordJournal, type RecordJournalOptions } from '../records/record-journal.js';

/**
 * How a test opens record journals (`journalIn`: small defaults, its log lines collected) and closes every
 * one it opened (`closeAll`, from `afterEach`).
 */
export function journalOpener() {
  const open: RecordJournal[] = [];
  const journalIn = (dir: string, options: Partial<RecordJournalOptions> = {}) => {
    const lines: string[] = [];
    const opened = RecordJournal.open({
      dir,
      segmentBytes: 1 << 20,
      fsyncIntervalMs: 1000,
      progressIntervalMs: 10_000,
      log: (line) => lines.push(line),
      ...options,
    });
    open.push(opened.journal);
    return { ...opened, lines };
  };
  const closeAll = () => {
    for (const journal of open.splice(0)) journal.close();
  };
  return { journalIn, closeAll };
}
