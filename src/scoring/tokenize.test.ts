import { describe, expect, it } from 'vitest';
import { stem, tokenize } from './tokenize.js';

describe('tokenize', () => {
  it.each([
    ['get_weather', ['weather']],
    ['getWeather', ['weather']],
    ['get-weather', ['weather']],
    ['parseHTTPResponse', ['pars', 'http', 'respons']],
    ['list_pull_requests', ['list', 'pull', 'request']],
    ['EC2 and k8s', ['ec2', 'kubernet']],
    ['sales_2024.csv', ['sal', '2024', 'csv']],
  ])('splits the identifier %s', (text, tokens) => {
    expect(tokenize(text)).toEqual(tokens);
  });

  it('drops stop words, conversational filler and single characters', () => {
    expect(tokenize('Can you please tell me what the weather is like in a city?')).toEqual([
      'weather',
      'city',
    ]);
    expect(tokenize('Thanks, that is all!')).toEqual([]);
  });

  it('drops possessives and contractions', () => {
    expect(tokenize("the customer's order")).toEqual(['customer', 'order']);
    expect(tokenize("I don't know")).toEqual([]);
  });

  it('expands common abbreviations', () => {
    expect(tokenize('Open a PR in the repo')).toEqual(['open', 'pull', 'request', 'repository']);
    expect(tokenize('the DB is slow')).toEqual(tokenize('the database is slow'));
  });

  it('keeps repeats, since term frequency matters', () => {
    expect(tokenize('test the tests, then test again')).toEqual(['test', 'test', 'test', 'again']);
  });

  it('keeps letters of other alphabets', () => {
    expect(tokenize('café in Zürich, 東京')).toEqual(['café', 'zürich', '東京']);
  });
});

describe('stem', () => {
  it.each([
    ['files', 'file'],
    ['coding', 'code'],
    ['created', 'create'],
    ['creating', 'creates'],
    ['monthly', 'month'],
    ['running', 'run'],
    ['stopped', 'stop'],
    ['queries', 'query'],
    ['tried', 'try'],
    ['boxes', 'box'],
    ['addresses', 'address'],
    ['colour', 'color'],
    ['optimise', 'optimize'],
    ['analysed', 'analyzed'],
    ['summarising', 'summarizing'],
    ['centre', 'center'],
  ])('%s and %s meet', (a, b) => {
    expect(stem(a)).toBe(stem(b));
  });

  it.each([
    ['string', 'string'],
    ['status', 'status'],
    ['analysis', 'analysis'],
    ['class', 'class'],
    ['need', 'need'],
    ['speed', 'speed'],
    ['only', 'only'],
    ['apply', 'apply'],
    ['bus', 'bus'],
    ['k8s', 'k8s'],
  ])('leaves %s alone', (word, stemmed) => {
    expect(stem(word)).toBe(stemmed);
  });
});
