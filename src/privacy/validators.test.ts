import { describe, expect, it } from 'vitest';
import { maskEmail, maskKeepingEdges, maskSecret, maskWord } from './masks.js';
import { isIbanChecksumValid, isLuhnValid, isSsnValid } from './validators.js';

describe('isLuhnValid', () => {
  it.each([
    ['4111111111111111', true],
    ['4485275012345678', true],
    ['5555555555554444', true],
    ['378282246310005', true],
    ['4111111111111112', false],
    ['4485275012345675', false],
    ['4111 1111 1111 1111', false],
    ['', false],
  ])('%s → %s', (digits, valid) => {
    expect(isLuhnValid(digits)).toBe(valid);
  });
});

describe('isIbanChecksumValid', () => {
  it.each([
    ['DE89370400440532013000', true],
    ['GB82WEST12345698765432', true],
    ['FR1420041010050500013M02606', true],
    ['NO9386011117947', true],
    ['DE88370400440532013000', false],
    ['DE89370400440532013001', false],
    ['GB82WEST1234569876543', false],
    ['de89370400440532013000', false],
  ])('%s → %s', (iban, valid) => {
    expect(isIbanChecksumValid(iban)).toBe(valid);
  });
});

describe('isSsnValid', () => {
  it.each([
    [['123', '45', '6789'], true],
    [['899', '99', '9999'], true],
    [['000', '45', '6789'], false],
    [['666', '45', '6789'], false],
    [['900', '45', '6789'], false],
    [['123', '00', '6789'], false],
    [['123', '45', '0000'], false],
  ])('%j → %s', ([area, group, serial], valid) => {
    expect(isSsnValid(area ?? '', group ?? '', serial ?? '')).toBe(valid);
  });
});

describe('masks', () => {
  it.each([
    [maskKeepingEdges('4485 2750 1234 5678'), '44** **** **** ***8'],
    [maskKeepingEdges('192.168.1.42'), '19*.***.*.*2'],
    [maskKeepingEdges('10.0.0.1'), '**.*.*.*'],
    [maskKeepingEdges('123-45-6789'), '12*-**-***9'],
    [maskWord('christian'), 'c****n'],
    [maskWord('bob'), '****'],
    [maskEmail('christian@gmail.com'), 'c****n@g****l.com'],
    [maskEmail('jo@mail.example.org'), '****@m****e.org'],
    [maskSecret('sk-', 'abcdefghij0123456789XY'), 'sk-****XY'],
    [maskSecret('sk-', 'short0123'), 'sk-****'],
  ])('%s', (masked, expected) => {
    expect(masked).toBe(expected);
  });
});
