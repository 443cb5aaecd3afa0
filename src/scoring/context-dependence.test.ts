import { describe, expect, it } from 'vitest';
import { announcesTopicShift, contextDependence } from './context-dependence.js';

const CODE_SESSION = [
  'Write a config loader and a command-line entry point for my tool.',
  'Here are two files: config.py loads and validates the YAML settings; cli.py defines the commands.',
];
const EMAIL_SESSION = [
  'Write an email to my manager asking to move our 1:1 to Thursday.',
  'Hi Dana, could we move our 1:1 from Tuesday to Thursday this week? I have a customer call. Thanks, Alex',
];

describe('contextDependence', () => {
  it('follows the FEATURES.md examples', () => {
    expect(
      contextDependence('fix the error in the second file you sent', CODE_SESSION),
    ).toBeGreaterThanOrEqual(0.95);
    expect(contextDependence('new topic: write a haiku', CODE_SESSION)).toBeLessThanOrEqual(0.15);
  });

  it.each([
    ['why not?', CODE_SESSION],
    ['and for Go?', CODE_SESSION],
    ['Use the other approach.', CODE_SESSION],
    ['That still does not work.', CODE_SESSION],
    ['ok, go ahead', CODE_SESSION],
    ['Can you make it shorter?', EMAIL_SESSION],
    ['Translate that into German.', EMAIL_SESSION],
    ['Now add a line about the quarterly review too.', EMAIL_SESSION],
    ['What did you mean by "customer call"?', EMAIL_SESSION],
    ['Great, now do the same for Friday.', EMAIL_SESSION],
  ])('"%s" depends on the conversation', (latest, earlier) => {
    expect(contextDependence(latest, earlier)).toBeGreaterThanOrEqual(0.6);
  });

  it.each([
    ['Hi there!', CODE_SESSION],
    ['Thanks!', EMAIL_SESSION],
    ["Unrelated: what's the capital of Peru?", CODE_SESSION],
    ['Switching gears, give me a recipe for pancakes.', EMAIL_SESSION],
    ['Forget that. How do I center a div with CSS?', CODE_SESSION],
    ['Write a limerick about a cat who loves lasagna.', CODE_SESSION],
    ['What is the difference between TCP and UDP?', EMAIL_SESSION],
    [
      'Fix this bug:\n```js\nconst total = items.reduce((a, b) => a + b);\n```\nIt throws on an empty array.',
      EMAIL_SESSION,
    ],
    [
      'Summarize this: "Remote work has reshaped city centres and landlords convert offices to flats."',
      CODE_SESSION,
    ],
    ["Hello, can you help me write a toast for my sister's wedding?", CODE_SESSION],
  ])('"%s" stands on its own', (latest, earlier) => {
    expect(contextDependence(latest, earlier)).toBeLessThan(0.6);
  });

  it('is 0 without earlier turns and stays in 0..1', () => {
    expect(contextDependence('and in Python?', [])).toBe(0);
    const score = contextDependence(
      'you said the second one, you sent it, fix it again, same error',
      CODE_SESSION,
    );
    expect(score).toBeLessThanOrEqual(1);
  });

  it('lets an explicit reference outweigh a topic-shift phrase', () => {
    expect(
      contextDependence('Forget that, use the second option you suggested instead.', CODE_SESSION),
    ).toBeGreaterThan(0.6);
  });
});

describe('announcesTopicShift', () => {
  it.each([
    ['New topic: write a haiku', true],
    ['Different question, what is DNS?', true],
    ['By the way, unrelated: is npm audit safe?', true],
    ['Continue with the next file.', false],
    ['What about the topic of the talk?', false],
  ])('%s → %s', (message, expected) => {
    expect(announcesTopicShift(message)).toBe(expected);
  });
});

describe('announced topic shifts, whatever back-reference words follow', () => {
  it.each([
    'Unrelated question, but how do I undo it if I already pushed to main?',
    'Switching topics: can you also explain how compound interest works?',
    'Changement de sujet : comment je fais une mayonnaise qui ne tranche pas ?',
    'Rien à voir, mais tu peux aussi m’expliquer la différence entre TCP et UDP ?',
    'Cambiando de tema, ¿qué me recomiendas también para Oporto?',
    'Otra pregunta que no tiene nada que ver: ¿cómo se calcula eso para un círculo?',
    'Anderes Thema: wie berechne ich das aus einem Bruttobetrag?',
    'Ganz andere Frage: ist das auch bei Miete so?',
    'Ok, so, totally different question: is it the same for a Roth IRA?',
  ])('"%s" is a shift (below 0.6)', (latest) => {
    expect(contextDependence(latest, CODE_SESSION)).toBeLessThanOrEqual(0.15);
    expect(announcesTopicShift(latest)).toBe(true);
  });

  it('keeps "by the way" and "forget that" from hiding an explicit back-reference', () => {
    expect(
      contextDependence('By the way, the fix you suggested still throws the same error.', CODE_SESSION),
    ).toBeGreaterThanOrEqual(0.6);
    expect(
      contextDependence('The error seems unrelated to the change you made.', CODE_SESSION),
    ).toBeGreaterThan(0.6);
  });

  it.each([
    ['Et dans l’ordre décroissant ?', CODE_SESSION],
    ['Le code que tu m’as donné ne compile pas.', CODE_SESSION],
    ['¿Puedes hacerlo más corto?', EMAIL_SESSION],
    ['Sigue sin funcionar con la versión que me diste.', CODE_SESSION],
    ['Kannst du das auch in TypeScript schreiben?', CODE_SESSION],
    ['Das funktioniert nicht, immer noch derselbe Fehler.', CODE_SESSION],
  ])('"%s" depends on the conversation (French, Spanish, German)', (latest, earlier) => {
    expect(contextDependence(latest, earlier)).toBeGreaterThanOrEqual(0.6);
  });
});
