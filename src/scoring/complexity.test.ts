import { beforeAll, describe, expect, it } from 'vitest';
import { type ComplexityJudge, createComplexityJudge, createLazyComplexityJudge } from './complexity.js';
import { createLazyStemmers } from './stemmers.js';

let complexity: ComplexityJudge;
beforeAll(async () => {
  complexity = createComplexityJudge(await createLazyStemmers().load());
});

describe('complexity', () => {
  it.each([
    ['hello!'],
    ['thanks a lot'],
    ["What's the capital of France?"],
    ['Who wrote War and Peace?'],
    ['How many grams in a kilogram?'],
    ['Tell me a joke.'],
    ['Give me a synonym for "quick".'],
  ])('small talk and lookups score low: %s', (prompt) => {
    expect(complexity(prompt)).toBeLessThan(0.25);
  });

  it.each([
    ['Write a friendly email reminding the team about Friday’s deadline for expense reports.'],
    ['Explain the difference between a list and a set in Python.'],
    ['Write a bash script that renames every .txt file in a folder to .md.'],
    ['Summarize the causes of the First World War in three paragraphs.'],
    ['How do I add a GitHub Actions workflow that runs npm test on pull requests?'],
  ])('routine tasks score in the middle: %s', (prompt) => {
    const score = complexity(prompt);
    expect(score).toBeGreaterThanOrEqual(0.25);
    expect(score).toBeLessThanOrEqual(0.75);
  });

  it.each([
    [
      'Prove that the sum of the first n odd numbers is n^2 by induction, then generalise to arithmetic series.',
    ],
    [
      'Design a distributed job scheduler that guarantees at-least-once execution across regions; discuss consistency trade-offs, failure modes and how you would test it.',
    ],
    [
      'Derive the gradient of the logistic regression loss, explain step by step why it is convex, and analyse the complexity of one epoch of gradient descent.',
    ],
    [
      'Compare optimistic and pessimistic locking for an inventory service handling 10k orders per second, analyse the race conditions of each, and recommend one with justification.',
    ],
  ])('multi-step reasoning and hard design score high: %s', (prompt) => {
    expect(complexity(prompt)).toBeGreaterThan(0.75);
  });

  it('rises with reasoning added to the same request', () => {
    const plain = complexity('Write a function that sorts a list of users by age.');
    const harder = complexity(
      'Write a function that sorts a list of users by age, prove it is stable, and analyse its complexity.',
    );
    expect(harder).toBeGreaterThan(plain);
  });

  it('counts pasted material for length, not for what is asked', () => {
    const quoted = complexity(
      'Fix the typo in this sentence: "We must prove, step by step, that the distributed algorithm is correct."',
    );
    expect(quoted).toBeLessThanOrEqual(0.75);
  });

  it('stays in 0..1 for empty and huge prompts', () => {
    expect(complexity('')).toBe(0.05);
    const huge = complexity('Design and prove a distributed consensus protocol. '.repeat(2000));
    expect(huge).toBeLessThanOrEqual(1);
    expect(huge).toBeGreaterThan(0.75);
  });
});

describe('complexity in French, Spanish and German', () => {
  const band = (score: number) => (score < 0.25 ? 'low' : score > 0.75 ? 'high' : 'medium');
  it.each([
    ['Quelle est la capitale du Canada ?', 'low'],
    ['¡Muchas gracias!', 'low'],
    ['Wie viele Meter hat eine Meile?', 'low'],
    [
      'Écris une fonction Python qui compte les mots d’un fichier et affiche les dix plus fréquents.',
      'medium',
    ],
    [
      'Escribe un correo para un cliente explicando que subiremos los precios un 5 % en enero y por qué.',
      'medium',
    ],
    ['Schreib ein Bash-Skript, das alle .log-Dateien älter als 7 Tage in einem Ordner löscht.', 'medium'],
    [
      'Conçois l’architecture d’une plateforme SaaS multi-tenant pour la facturation : isolation des données, montée en charge à 10 000 clients, migrations de schéma sans interruption, et justifie chaque choix.',
      'high',
    ],
    [
      'Demuestra que hay infinitos números primos y después deriva una cota inferior para la cantidad de primos menores que n.',
      'high',
    ],
    [
      'Entwickle einen Algorithmus für kürzeste Wege in einem Graphen mit negativen Kantengewichten, beweise seine Korrektheit und analysiere die Laufzeit.',
      'high',
    ],
  ])('"%s" → %s', (prompt, expected) => {
    expect(band(complexity(prompt))).toBe(expected);
  });
});

describe('complexity reads the request, not the material handed over', () => {
  const email =
    'Hi all,\n\nThanks for the great work this quarter. As discussed, we will hold the planning session on ' +
    'Thursday at 2:30 pm in the Harbour room on the third floor; remote folks can join via the usual link. ' +
    'Please bring your top three priorities and any headcount requests, and plan for two hours.\n\nBest,\nDana';

  it('a lookup about a pasted email stays low, however long the email', () => {
    expect(complexity(`What time is the session?\n\n${email}`)).toBeLessThan(0.25);
    expect(complexity(`What time is the session?\n\n${email}\n\n${email}\n\n${email}`)).toBeLessThan(0.25);
  });

  it('a task on the same email is a routine task, and a reasoning task on it is harder', () => {
    const reply = complexity(`Reply to this email and confirm that I will attend:\n\n${email}`);
    expect(reply).toBeGreaterThanOrEqual(0.25);
    expect(reply).toBeLessThanOrEqual(0.75);
    const analysis = complexity(
      `Analyse whether this meeting plan fits our budget, compare it with a remote session and recommend one:\n\n${email}`,
    );
    expect(analysis).toBeGreaterThan(reply);
  });
});

describe('complexity matches asks by their stem in every language', () => {
  it.each([
    ['Analysez les compromis de ce choix de base de données et justifiez votre recommandation.'],
    ['Analyse les compromis de ce choix de base de données et justifie ta recommandation.'],
  ])('French imperatives of either person weigh alike: %s', (prompt) => {
    expect(complexity(prompt)).toBeGreaterThan(0.5);
  });

  it('a proof is high on its own, in each language', () => {
    for (const prompt of [
      'Prove that every group of prime order is cyclic.',
      'Démontrez que tout groupe d’ordre premier est cyclique.',
      'Demuestre que todo grupo de orden primo es cíclico.',
      'Beweisen Sie, dass jede Gruppe von Primzahlordnung zyklisch ist.',
    ]) {
      expect(complexity(prompt)).toBeGreaterThan(0.75);
    }
  });

  it('the lazy judge imports the stemmers once and judges as the eager one', async () => {
    const lazy = createLazyComplexityJudge(createLazyStemmers());
    const [first, second] = await Promise.all([lazy.load(), lazy.load()]);
    expect(first).toBe(second);
    expect(first('Design a distributed cache; discuss the consistency trade-offs.')).toBe(
      complexity('Design a distributed cache; discuss the consistency trade-offs.'),
    );
  });
});
