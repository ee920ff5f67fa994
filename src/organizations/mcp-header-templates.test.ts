/** Proves that header templates name only the requester's id and email, filled in one pass, and refuse any other placeholder. */
import { describe, expect, it } from 'vitest';
import { AppError } from '../errors/app-error.js';
import { checkHeaderTemplate, fillHeaderTemplate } from './mcp-header-templates.js';

describe('MCP header templates', () => {
  it('fills {{USER_ID}} and {{USER_EMAIL}}, spaces inside the braces allowed', () => {
    expect(fillHeaderTemplate('id={{USER_ID}}; mail={{ USER_EMAIL }}', { userId: 7, email: 'ada@school.test' })).toBe(
      'id=7; mail=ada@school.test',
    );
  });

  it('never reads a filled-in email as a placeholder', () => {
    expect(fillHeaderTemplate('{{USER_EMAIL}}', { userId: 7, email: '{{USER_ID}}@x.test' })).toBe('{{USER_ID}}@x.test');
  });

  it('refuses any other placeholder, naming the field', () => {
    expect(() => checkHeaderTemplate('Bearer {{USER_TOKEN}}', 'headers[0].value')).toThrow(AppError);
    expect(() => checkHeaderTemplate('{{SESSION}}', 'headers[1].value')).toThrow(expect.objectContaining({ param: 'headers[1].value' }));
    expect(() => checkHeaderTemplate('Bearer static {{USER_ID}}', 'headers[0].value')).not.toThrow();
  });
});
