import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { DialogForm } from '../components/DialogForm';
import { sendForm } from './formSubmit';
import { GatewayError } from './api/errors';

const FIELDS = ['name', 'group'] as const;

describe('sendForm', () => {
  it('reports nothing when the request succeeds', async () => {
    let sent = false;
    expect(await sendForm(FIELDS, async () => void (sent = true))).toEqual({
      errors: {},
      failure: null,
    });
    expect(sent).toBe(true);
  });

  it('puts a refusal that names one of the fields on that field', async () => {
    const outcome = await sendForm(FIELDS, async () => {
      throw new GatewayError('group must be 1-64 characters', 400, 'group', 'invalid_value');
    });
    expect(outcome).toEqual({ errors: { group: 'group must be 1-64 characters' }, failure: null });
  });

  it('keeps any other failure for the form as a whole', async () => {
    const other = await sendForm(FIELDS, async () => {
      throw new GatewayError('no such key', 404, 'id', 'not_found');
    });
    expect(other.errors).toEqual({});
    expect(other.failure).toMatchObject({ status: 404, message: 'no such key', param: 'id' });
    const thrown = await sendForm(FIELDS, async () => {
      throw new Error('offline');
    });
    expect(thrown.failure).toMatchObject({ status: 0, message: 'offline' });
  });
});

describe('DialogForm', () => {
  const render = (failure: string | null, busy = false) =>
    renderToStaticMarkup(
      createElement(DialogForm, {
        onSubmit: () => {},
        onCancel: () => {},
        busy,
        submitLabel: busy ? 'Saving…' : 'Save',
        submitTestId: 'x-submit',
        failure,
        failureTestId: 'x-error',
        children: createElement('input', { name: 'field' }),
      }),
    );

  it('renders the fields, then Cancel and submit', () => {
    const html = render(null);
    expect(html).toMatch(/^<form novalidate=""><input name="field"\/>/i);
    expect(html).not.toContain('x-error');
    expect(html).toContain('<button type="button">Cancel</button>');
    expect(html).toContain('data-testid="x-submit">Save</button>');
  });

  it('shows the failure as an alert and disables both buttons while busy', () => {
    const html = render('the gateway did not answer', true);
    expect(html).toContain('role="alert" data-testid="x-error">the gateway did not answer</p>');
    expect(html.match(/disabled=""/g)).toHaveLength(2);
    expect(html).toContain('Saving…');
  });
});
