import { describe, expect, it } from 'vitest';
import { makeRecord } from '../../store/store-contract.js';
import { CSV_COLUMNS, csvCell, csvLine } from './records-csv.js';

describe('csvCell', () => {
  it.each([
    ['plain', 'plain'],
    ['a,b', '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ['two\nlines', '"two\nlines"'],
    ['=HYPERLINK("http://evil")', `"'=HYPERLINK(""http://evil"")"`],
    ['+1', "'+1"],
    ['-2+3', "'-2+3"],
    ['@SUM(A1)', "'@SUM(A1)"],
    ['\tcmd', "'\tcmd"],
    ['\rcmd', `"'\rcmd"`],
    ['a=b', 'a=b'],
  ])('writes %j as %j', (value, cell) => {
    expect(csvCell(value)).toBe(cell);
  });

  it('writes numbers, booleans and absent values as they are', () => {
    expect(csvCell(-5)).toBe('-5');
    expect(csvCell(1.5)).toBe('1.5');
    expect(csvCell(true)).toBe('true');
    expect(csvCell(null)).toBe('');
    expect(csvCell(undefined)).toBe('');
  });
});

describe('csvLine', () => {
  it('writes one cell per column, CRLF-terminated, guarding text fields', () => {
    const record = makeRecord({ model: '=cmd|calc', errorMessage: 'bad, "quoted"' });
    const line = csvLine(record);
    expect(line.endsWith('\r\n')).toBe(true);
    expect(line).toContain(`,'=cmd|calc,`);
    expect(line).toContain('"bad, ""quoted"""');
    expect(line.startsWith(`${record.genId},${record.createdAt},acme,`)).toBe(true);
    expect(CSV_COLUMNS).toContain('costNanoUsd');
  });

  it('says which rows the response cache answered and what each saved (a hit costs 0 like a free answer)', () => {
    expect(CSV_COLUMNS.slice(-2)).toEqual(['cached', 'costSavedNanoUsd']);
    expect(csvLine(makeRecord({ cached: true, costSavedNanoUsd: 98_765 })).endsWith(',true,98765\r\n')).toBe(
      true,
    );
    expect(csvLine(makeRecord({ cached: false, costSavedNanoUsd: 0 })).endsWith(',false,0\r\n')).toBe(true);
  });
});
