import { describe, expect, it } from 'vitest';
import type { JsonObject } from '../json/json.js';
import { injectSkills, MAX_LISTED_FILES, skillsSystemText } from './inject-skills.js';
import type { Skill } from './skill.js';

const pdf: Skill = {
  id: 'pdf-processing',
  name: 'PDF processing',
  description: 'Extract text and tables from PDF files.',
  instructions: '# Steps\n\n1. Run scripts/extract.py.\n2. Check references/api.md.',
  files: ['references/api.md', 'scripts/extract.py'],
  dir: '/skills/pdf-processing',
};
const bare: Skill = {
  ...pdf,
  id: 'bare',
  name: 'Bare',
  description: 'Nothing else.',
  instructions: '',
  files: [],
};

describe('skillsSystemText', () => {
  it('is empty without skills', () => {
    expect(skillsSystemText([])).toBe('');
  });

  it('has a section per skill: name, description, instructions and the other files by path', () => {
    expect(skillsSystemText([pdf, bare])).toBe(
      [
        '# Skills',
        'The following skills are available in this conversation. Each says what it is for. When the request ' +
          "falls within a skill's description, follow that skill's instructions.",
        '## Skill: PDF processing (id: pdf-processing)',
        'Description: Extract text and tables from PDF files.',
        '### Instructions',
        '# Steps\n\n1. Run scripts/extract.py.\n2. Check references/api.md.',
        '### Files',
        "The instructions may refer to these files of the skill (paths relative to the skill's folder; their " +
          'content is not included here):\n- references/api.md\n- scripts/extract.py',
        '## Skill: Bare (id: bare)',
        'Description: Nothing else.',
      ].join('\n\n'),
    );
  });

  it(`names at most ${MAX_LISTED_FILES} files and counts the rest`, () => {
    const files = Array.from(
      { length: MAX_LISTED_FILES + 3 },
      (_, i) => `assets/f${String(i).padStart(3, '0')}`,
    );
    const text = skillsSystemText([{ ...pdf, files }]);
    expect(text).toContain(`- assets/f${String(MAX_LISTED_FILES - 1).padStart(3, '0')}\n- … and 3 more`);
    expect(text).not.toContain(`assets/f${MAX_LISTED_FILES}`);
  });
});

describe('injectSkills', () => {
  const freeze = <T extends JsonObject>(request: T): T => structuredClone(request);

  it.each([
    [
      'after the leading system and developer messages',
      [
        { role: 'system', content: 'Be brief.' },
        { role: 'developer', content: 'Use JSON.' },
        { role: 'user', content: 'hi' },
        { role: 'system', content: 'late' },
      ],
      2,
    ],
    ['first when there is no system message', [{ role: 'user', content: 'hi' }], 0],
    ['last when there are only system messages', [{ role: 'system', content: 'a' }], 1],
    ['alone in an empty conversation', [], 0],
  ])('chat: adds a system message %s', (_case, messages, at) => {
    const request = { model: 'm', messages };
    const before = freeze(request);
    const result = injectSkills(request, 'chat', 'SKILLS');
    expect(request).toEqual(before);
    const expected = [...messages];
    expected.splice(at, 0, { role: 'system', content: 'SKILLS' });
    expect(result).toEqual({ model: 'm', messages: expected });
  });

  it.each([
    ['appends to existing instructions', { instructions: 'Be brief.', input: 'hi' }, 'Be brief.\n\nSKILLS'],
    ['creates instructions when absent', { input: 'hi' }, 'SKILLS'],
    ['replaces null instructions', { instructions: null, input: 'hi' }, 'SKILLS'],
    ['replaces blank instructions', { instructions: '  ', input: 'hi' }, 'SKILLS'],
  ])('responses: %s', (_case, request: JsonObject, instructions) => {
    const before = freeze(request);
    const result = injectSkills(request, 'responses', 'SKILLS');
    expect(request).toEqual(before);
    expect(result).toEqual({ ...request, instructions });
    expect(result.input).toBe('hi');
  });

  it('adds nothing for empty text, still returning a new object', () => {
    const request = { messages: [{ role: 'user', content: 'hi' }] };
    const result = injectSkills(request, 'chat', '');
    expect(result).toEqual(request);
    expect(result).not.toBe(request);
  });
});
