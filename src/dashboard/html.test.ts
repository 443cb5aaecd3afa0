import { describe, expect, it } from 'vitest';
import { escapeHtml, html, SafeHtml } from './html.js';

describe('html', () => {
  it('escapes every interpolated string, in content and attributes', () => {
    const hostile = `<img src=x onerror=alert(1)>"'\`&`;
    const page = html`<td title="${hostile}">${hostile}</td>`.text;
    expect(page).not.toContain('<img');
    expect(page).toBe(
      '<td title="&lt;img src=x onerror=alert(1)&gt;&quot;&#39;&#96;&amp;">&lt;img src=x onerror=alert(1)&gt;&quot;&#39;&#96;&amp;</td>',
    );
  });

  it('keeps fragments made by html and joins lists', () => {
    const rows = ['a<b', 'c'].map((cell) => html`<li>${cell}</li>`);
    expect(html`<ul>${rows}</ul>`.text).toBe('<ul><li>a&lt;b</li><li>c</li></ul>');
  });

  it('renders nullish and false as nothing, numbers as text', () => {
    expect(html`${null}${undefined}${false}${0}${1.5}`.text).toBe('01.5');
  });

  it('never trusts a string that looks like a fragment', () => {
    expect(html`${new SafeHtml('<b>').text}`.text).toBe('&lt;b&gt;');
    expect(escapeHtml('plain')).toBe('plain');
  });
});
