/** Sign in with an account's API key; the key is checked with GET /v1/auth/test before it is kept. */
import { useState } from 'preact/hooks';
import { call, describeError, storeKey } from './api';

export interface Identity {
  readonly keyName: string;
  readonly userId: string;
  readonly accountTier: string;
  readonly permissions: readonly string[];
}

export function SignIn({ onSignedIn }: { onSignedIn: (key: string, identity: Identity) => void }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event): Promise<void> => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const identity = await call<Identity>('GET', '/v1/auth/test', undefined, key.trim());
      storeKey(key.trim());
      onSignedIn(key.trim(), identity);
    } catch (e) {
      setError(describeError(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="sign-in">
      <h1>Baton console</h1>
      <form onSubmit={(e) => void submit(e)}>
        <label for="api-key">API key</label>
        <input id="api-key" name="api-key" type="password" autocomplete="off" placeholder="mk_…" value={key} onInput={(e) => setKey(e.currentTarget.value)} required />
        <button type="submit" disabled={busy || key.trim() === ''}>Sign in</button>
      </form>
      {error !== null && <p class="error" role="alert">{error}</p>}
      <p class="hint">The key stays in this tab (sessionStorage) and is sent only to this service. Create one with <code>POST /v1/api-keys</code> (README, Quickstart).</p>
    </main>
  );
}
