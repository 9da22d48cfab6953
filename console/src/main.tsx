/** The console shell: sign-in, then four views chosen by the URL fragment. */
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { Agents } from './agents';
import { call, storedKey, storeKey } from './api';
import { Approvals } from './approvals';
import { ExecutionDetail, Executions } from './executions';
import { SignIn, type Identity } from './sign-in';
import { RunDetail, Workflows } from './workflows';
import './console.css';

function useHash(): string {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const update = (): void => setHash(location.hash);
    addEventListener('hashchange', update);
    return () => removeEventListener('hashchange', update);
  }, []);
  return hash;
}

function View({ hash }: { hash: string }) {
  const [, section, id] = /^#\/([a-z]+)(?:\/([A-Za-z0-9_-]+))?/.exec(hash) ?? [];
  if (section === 'executions' && id !== undefined) return <ExecutionDetail id={id} />;
  if (section === 'agents') return <Agents />;
  if (section === 'workflows') return <Workflows />;
  if (section === 'runs' && id !== undefined) return <RunDetail id={id} />;
  if (section === 'approvals') return <Approvals />;
  return <Executions />;
}

const TABS = [
  ['#/executions', 'Executions'],
  ['#/agents', 'Agents'],
  ['#/workflows', 'Workflows'],
  ['#/approvals', 'Approvals'],
] as const;

function App() {
  const [key, setKey] = useState<string | null>(storedKey());
  const [identity, setIdentity] = useState<Identity | null>(null);
  const hash = useHash();
  useEffect(() => {
    // A key kept from earlier in this tab is checked again; a revoked one signs out.
    if (key !== null && identity === null) {
      call<Identity>('GET', '/v1/auth/test').then(setIdentity, () => signOut());
    }
  }, [key]);
  const signOut = (): void => {
    storeKey(null);
    setKey(null);
    setIdentity(null);
  };
  if (key === null) return <SignIn onSignedIn={(k, i) => (setIdentity(i), setKey(k))} />;
  const section = /^#\/([a-z]+)/.exec(hash)?.[1] ?? 'executions';
  const active = `#/${section === 'runs' ? 'workflows' : section}`;
  return (
    <>
      <nav>
        <strong class="brand">Baton</strong>
        {TABS.map(([href, label]) => (
          <a href={href} class={active === href ? 'active' : ''}>{label}</a>
        ))}
        <span class="who">{identity === null ? '' : `${identity.keyName} · ${identity.userId} · ${identity.accountTier}`}</span>
        <button class="sign-out" onClick={signOut}>Sign out</button>
      </nav>
      <main>
        <View hash={hash} />
      </main>
    </>
  );
}

render(<App />, document.getElementById('app')!);
