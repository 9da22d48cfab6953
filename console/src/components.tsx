/** Pieces every view uses: a status badge, an error line, a JSON block. */
import type { ComponentChildren } from 'preact';
import { pretty } from './format';

export function Status({ value }: { value: unknown }) {
  const text = String(value ?? '–');
  return <span class={`status status-${text.toLowerCase()}`}>{text}</span>;
}

export function ErrorLine({ message }: { message: string | null }) {
  return message === null ? null : <p class="error" role="alert">{message}</p>;
}

export function Json({ value }: { value: unknown }) {
  return <pre class="json">{pretty(value)}</pre>;
}

export function Section({ title, children, actions }: { title: string; children: ComponentChildren; actions?: ComponentChildren }) {
  return (
    <section>
      <header class="section-head">
        <h2>{title}</h2>
        {actions}
      </header>
      {children}
    </section>
  );
}
