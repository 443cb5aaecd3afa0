import { describe, expect, it } from 'vitest';
import { guessLanguage } from './guess-language.js';
import { createIntentReader, fieldSimilarity } from './intent-relevance.js';
import { createLazyStemmers } from './stemmers.js';

describe('createLazyStemmers', () => {
  it('loads the four Snowball stemmers once, on first use', async () => {
    const lazy = createLazyStemmers();
    const first = lazy.load();
    expect(lazy.load()).toBe(first);
    const stemmers = await first;
    expect(stemmers.en('invoices')).toBe(stemmers.en('invoice'));
    expect(stemmers.fr('factures')).toBe(stemmers.fr('facture'));
    expect(stemmers.es('pagos')).toBe(stemmers.es('pago'));
    expect(stemmers.de('rechnungen')).toBe(stemmers.de('rechnung'));
  });
});

describe('guessLanguage', () => {
  it.each([
    ['How do I reverse a list in Python?', 'en'],
    ['Comment est-ce que je fais une mayonnaise ?', 'fr'],
    ['¿Cómo se calcula el área de un círculo?', 'es'],
    ['Wie berechne ich die Mehrwertsteuer?', 'de'],
    ['quicksort rust', 'en'],
  ])('%s → %s', (text, language) => {
    expect(guessLanguage(text)).toBe(language);
  });
});

describe('fields of meaning', () => {
  it('puts a prompt and a description with no shared word in the same field', async () => {
    const reader = createIntentReader(await createLazyStemmers().load());
    const coding = reader.profile('coding: programming questions');
    const travel = reader.profile('travel: trips and holidays');
    const prompt = reader.profile('write a quicksort in Rust');
    expect(fieldSimilarity(prompt, coding)).toBeGreaterThan(0.4);
    expect(fieldSimilarity(prompt, travel)).toBe(0);
    expect(fieldSimilarity(reader.profile('Who won the 2018 World Cup?'), coding)).toBe(0);
  });
});
