import { describe, expect, it } from 'vitest';
import type { RedactSettings } from '../gateway-settings/gateway-settings.js';
import { redactText } from './redact-text.js';

const ALL: RedactSettings = {
  email: true,
  phone: true,
  ip: true,
  uuid: true,
  token: true,
  credit_card: true,
  iban: true,
  ssn: true,
  mac: true,
};

type Row = [input: string, expected: string];

/** Each row with only `name` enabled, then with every detector enabled: the same result either way. */
function table(name: keyof typeof ALL, rows: Row[]): void {
  describe(name, () => {
    it.each(rows)('%s', (input, expected) => {
      expect(redactText(input, { [name]: true }).text).toBe(expected);
      expect(redactText(input, ALL).text).toBe(expected);
    });
  });
}

const same = (input: string): Row => [input, input];

table('email', [
  ['Write to christian@gmail.com today.', 'Write to c****n@g****l.com today.'],
  ['jane.doe+invoices@example.co.uk', 'j****s@e****o.uk'],
  ['ops@mail.acme-corp.io', '****@m****p.io'],
  ['From: Jo <jo@x.io>', 'From: Jo <****@****.io>'],
  same('user@localhost is not routable'),
  same('ping @channel, see you @ 5'),
  same('john.smith at gmail dot com'),
]);

table('phone', [
  ['Call me at +1 (555) 123-4567.', 'Call me at +1 (5**) ***-***7.'],
  ['+44 20 7946 0958', '+44 ** **** ***8'],
  ['WhatsApp: +4915112345678', 'WhatsApp: +49**********8'],
  ['office 555-123-4567 ext', 'office 55*-***-***7 ext'],
  ['(555) 123-4567', '(55*) ***-***7'],
  ['1-800-555-0199', '1-8**-***-***9'],
  ['London 020 7946 0958', 'London 02* **** ***8'],
  ['Paris 06 12 34 56 78', 'Paris 06 ** ** ** *8'],
  same('Released on 2024-01-15 at 10:30'),
  same('Due 15.01.2024, or 01/02/2024, or 01-02-2024'),
  same('Order #1234567890 shipped'),
  same('created_at 1700000000123'),
  same('version 10.2.3.4567'),
  same('extension 555-1234'),
  same('short 020 7946'),
  same('Logged 05-03-2024-14-30 by cron'),
  same('growth of +15% this year'),
]);

table('ip', [
  ['Server 203.0.113.195:8080 is down', 'Server 20*.*.***.**5:8080 is down'],
  ['gateway 192.168.1.42', 'gateway 19*.***.*.*2'],
  ['dns 10.0.0.1', 'dns **.*.*.*'],
  ['host 2001:db8::8a2e:370:7334 up', 'host 20**:***::****:***:***4 up'],
  ['2001:0db8:85a3:0000:0000:8a2e:0370:7334', '20**:****:****:****:****:****:****:***4'],
  ['mapped ::ffff:192.168.1.1', 'mapped ::ff**:***.***.*.1'],
  same('not an address: 999.1.1.1'),
  same('256.256.256.256'),
  same('release 1.2.3.4.5'),
  same('build v1.2.3.4'),
  same('slices a[1::2] and a[::2] at 12:30:45'),
]);

table('uuid', [
  ['id 123e4567-e89b-12d3-a456-426614174000', 'id 12******-****-****-****-***********0'],
  ['"550E8400-E29B-41D4-A716-446655440000"', '"55******-****-****-****-***********0"'],
  same('123e4567-e89b-12d3-a456-4266141740001'),
  same('123e456-e89b-12d3-a456-426614174000'),
  same('123e4567-e89b-12d3-426614174000'),
  same('123e4567-e89b-12d3-a456-42661417400g'),
]);

table('token', [
  ['key sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z', 'key sk-proj-****4z'],
  ['sk-ant-api03-abcDEF123456ghiJKL789012mnoPQR', 'sk-ant-****QR'],
  ['OPENAI_API_KEY=sk-9f8e7d6c5b4a39281706fEdCbA', 'OPENAI_API_KEY=sk-****bA'],
  ['AKIAIOSFODNN7EXAMPLE', 'AKIA****LE'],
  ['AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q', 'AIza****6Q'],
  ['ghp_1234567890abcdefghijABCDEFGHIJ123456', 'ghp_****56'],
  ['github_pat_11ABCDEFG0123456789_abcdefghijklmnop', 'github_pat_****op'],
  ['xoxb-1234567890-0987654321-AbCdEfGhIjKlMnOp', 'xoxb-****Op'],
  ['glpat-abcDEF1234567890xyzW', 'glpat-****zW'],
  ['stripe sk_live_51H8abcDEF123456789 rk_live_51H8abcDEF987654321', 'stripe sk_live_****89 rk_live_****21'],
  [
    'jwt eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c',
    'jwt eyJ****.eyJ****.****',
  ],
  ['Authorization: Bearer 8f3kQ9zLm2Xp4Rt7Vw1Yb6Nc0Zt', 'Authorization: Bearer ****Zt'],
  ['postgres://admin:s3cret@db.example.com:5432/app', 'postgres://admin:****@db.example.com:5432/app'],
  ['redis://:hunter2@cache.internal:6379', 'redis://:****@cache.internal:6379'],
  same('pip install scikit-learn; sk-learn-is-a-great-library'),
  same('ghp_short and AKIA1234'),
  same('Bearer authentication-is-a-scheme'),
  same('https://example.com:8080/path?user=a'),
]);

table('credit_card', [
  ['card 4485 2750 1234 5678 exp 12/27', 'card 44** **** **** ***8 exp 12/27'],
  ['4111 1111 1111 1111', '41** **** **** ***1'],
  ['5555-5555-5555-4444', '55**-****-****-***4'],
  ['card 4485\u00a02750\u00a01234\u00a05678 ok', 'card 44**\u00a0****\u00a0****\u00a0***8 ok'],
  ['4485\u202f2750\u202f1234\u202f5678', '44**\u202f****\u202f****\u202f***8'],
  ['4485.2750.1234.5678', '44**.****.****.***8'],
  ['amex 378282246310005', 'amex 37************5'],
  ['amex 3782 822463 10005', 'amex 37** ****** ****5'],
  ['visa13 4222222222222', 'visa13 42**********2'],
  same('4111 1111 1111 1112'),
  same('4485 2750 1234 5675'),
  same('invoice 1234567812345670'),
  same('4111 1111 1111'),
]);

table('iban', [
  ['IBAN DE89 3704 0044 0532 0130 00.', 'IBAN DE** **** **** **** **** *0.'],
  ['GB82WEST12345698765432', 'GB*******************2'],
  ['FR14 2004 1010 0505 0001 3M02 606', 'FR** **** **** **** **** **** **6'],
  ['DE89 3704 0044 0532 0130 00 BIC COBADEFFXXX', 'DE** **** **** **** **** *0 BIC COBADEFFXXX'],
  ['NL91ABNA0417164300 and CH9300762011623852957', 'NL***************0 and CH******************7'],
  ['Belarus BY13 NBRB 3600 9000 0000 2Z00 AB00', 'Belarus BY** **** **** **** **** **** ***0'],
  [
    'DE89 3704 0044 0532 0130 00 GB82 WEST 1234 5698 7654 32',
    'DE** **** **** **** **** *0 GB** **** **** **** **** *2',
  ],
  same('DE88 3704 0044 0532 0130 00'),
  same('DE543704004405320130001'),
  same('GB82 WEST 1234 5698 7654 33'),
  same('DE89 3704 0044 0532 0130 0'),
]);

table('ssn', [
  ['SSN 123-45-6789', 'SSN 12*-**-***9'],
  ['ssn: 078-05-1120.', 'ssn: 07*-**-***0.'],
  same('000-12-3456'),
  same('666-12-3456'),
  same('900-12-3456 and 999-12-3456'),
  same('123-00-4567'),
  same('123-45-0000'),
  same('123456789'),
]);

table('mac', [
  ['eth0 00:1A:2B:3C:4D:5E', 'eth0 00:**:**:**:**:*E'],
  ['00-1a-2b-3c-4d-5e', '00-**-**-**-**-*e'],
  ['cisco 001a.2b3c.4d5e', 'cisco 00**.****.***e'],
  same('00:1A:2B:3C:4D'),
  same('00:1A:2B:3C:4D:5E:6F'),
  same('00:1A-2B:3C-4D:5E'),
]);
