/**
 * A proxy's serial console: xterm.js over console:open / console:write / console:data
 * (shared/console.ts). Connect opens the console SAFE; when another client holds it the
 * panel says so and offers "Take over" (force). Keys typed go to the guest as they are;
 * output is written as it arrives; the terminal fits its box (fit addon) as that changes.
 * Unmounting, or switching to another proxy, closes the session.
 */
import { FitAddon } from '@xterm/addon-fit';
import { type ITheme, Terminal } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';
import { useCallback, useEffect, useRef, useState } from 'react';
import type { ConsoleClosed, ConsoleData } from '../../shared/console.js';
import { ErrorNames, isErrorNamed } from '../../shared/ipc-transport.js';
import { closeConsole, followConsoles, openConsole, writeConsole } from '../stores/console-session.js';
import { openTerminal } from './xterm-csp.js';
import './console-panel.css';
import { messageOf } from '../../shared/errors.js';

type ConsoleState =
  | { phase: 'idle' }
  | { phase: 'connecting'; force: boolean }
  | { phase: 'connected'; session: string; host: string }
  | { phase: 'busy'; message: string }
  | { phase: 'closed'; reason: string }
  | { phase: 'error'; message: string };

/** Characters per console:write: below the contract's cap, so a large paste goes in pieces. */
const WRITE_PIECE = 16 * 1024;

/** Splits text into pieces of at most `max` UTF-16 units, never inside a surrogate pair. */
function pieces(text: string, max: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length;) {
    let end = Math.min(text.length, i + max);
    if (end < text.length && /[\uD800-\uDBFF]/.test(text[end - 1]!)) end--;
    out.push(text.slice(i, end));
    i = end;
  }
  return out;
}

/** The terminal's colours from the app's theme variables (light or dark, as the OS says). */
function themeOf(element: HTMLElement): ITheme {
  const css = getComputedStyle(element);
  const v = (name: string, fallback: string) => css.getPropertyValue(name).trim() || fallback;
  return {
    background: v('--panel', '#ffffff'),
    foreground: v('--text', '#1b1d21'),
    cursor: v('--accent', '#2f6feb'),
    selectionBackground: v('--selected', '#e3ecfd'),
  };
}

function stateLine(state: ConsoleState, name: string): string {
  switch (state.phase) {
    case 'idle':
      return `Not connected. Connect to see ${name}'s serial console (its boot messages and login prompt).`;
    case 'connecting':
      return state.force ? 'Taking the console over…' : 'Connecting…';
    case 'connected':
      return `Connected to ${name} on ${state.host}. Keys you type go to the guest; Ctrl+] leaves the terminal.`;
    case 'busy':
      return state.message;
    case 'closed':
      return `Closed: ${state.reason}`;
    case 'error':
      return `Could not connect: ${state.message}`;
  }
}

/** The serial console of proxy `name`. Another name is another terminal and session (the old one closes). */
export function ConsolePanel({ name }: { name: string }) {
  return <ConsoleSession key={name} name={name} />;
}

function ConsoleSession({ name }: { name: string }) {
  const box = useRef<HTMLDivElement>(null);
  const terminal = useRef<Terminal | null>(null);
  const [state, setState] = useState<ConsoleState>({ phase: 'idle' });
  /** The open session, for the event and key handlers (state is stale inside them). */
  const session = useRef<string | null>(null);
  /** Output that arrived while console:open was still answering (its session id unknown yet). */
  const early = useRef<ConsoleData[] | null>(null);
  /** An end that arrived while console:open was still answering (another client forced the console at once). */
  const earlyClosed = useRef<ConsoleClosed[] | null>(null);
  /** The bar with the buttons: Ctrl+] moves the focus there (the terminal takes Tab and Escape for the guest). */
  const bar = useRef<HTMLDivElement>(null);
  const writes = useRef<Promise<void>>(Promise.resolve());

  // The terminal lives as long as the panel: created once, fitted to its box, themed from the app's colours.
  useEffect(() => {
    const element = box.current;
    if (!element) return;
    const term = new Terminal({
      cursorBlink: true,
      fontFamily: 'ui-monospace, "DejaVu Sans Mono", monospace',
      fontSize: 13,
      scrollback: 5000,
      theme: themeOf(element),
    });
    const fit = new FitAddon();
    term.loadAddon(fit);
    const cleanupSheets = openTerminal(term, element);
    terminal.current = term;
    const refit = () => {
      try {
        fit.fit();
      } catch {
        // Not laid out yet (hidden tab): the next resize fits it.
      }
    };
    refit();
    const observer = new ResizeObserver(refit);
    observer.observe(element);
    const scheme = window.matchMedia('(prefers-color-scheme: dark)');
    const retheme = () => (term.options.theme = themeOf(element));
    scheme.addEventListener('change', retheme);
    // Ctrl+] (virsh console's escape) leaves the terminal: without it a keyboard user could not reach the buttons.
    term.attachCustomKeyEventHandler((e) => {
      if (
        e.type === 'keydown' &&
        e.ctrlKey &&
        !e.altKey &&
        !e.metaKey &&
        (e.key === ']' || e.code === 'BracketRight')
      ) {
        e.preventDefault();
        bar.current?.querySelector<HTMLButtonElement>('button:not([disabled])')?.focus();
        return false;
      }
      return true;
    });
    const typed = term.onData((data) => {
      const id = session.current;
      if (!id) return;
      // One after another, so a paste split in pieces arrives in order.
      writes.current = writes.current.then(async () => {
        // Keys go as xterm hands them (Enter is CR, as a serial tty expects).
        for (const piece of pieces(data, WRITE_PIECE)) {
          try {
            await writeConsole(id, piece);
          } catch (err) {
            if (session.current !== id) return;
            term.write(`\r\n[input not sent: ${messageOf(err)}]\r\n`);
            // The page lost the backend (serve stopped, the socket dropped): the backend has closed the session.
            if (isErrorNamed(err, ErrorNames.disconnected)) {
              session.current = null;
              setState({
                phase: 'closed',
                reason: 'the connection to Egress Desk was lost: reload the page to connect again',
              });
            }
            return;
          }
        }
      });
    });
    return () => {
      typed.dispose();
      scheme.removeEventListener('change', retheme);
      observer.disconnect();
      term.dispose();
      cleanupSheets();
      terminal.current = null;
    };
  }, []);

  // Output and the end of the session, from the backend's events.
  useEffect(() => {
    return followConsoles({
      data: (payload) => {
        if (payload.session === session.current) terminal.current?.write(payload.data);
        else early.current?.push(payload);
      },
      closed: (payload) => {
        if (payload.session !== session.current) {
          earlyClosed.current?.push(payload);
          return;
        }
        session.current = null;
        setState({ phase: 'closed', reason: payload.reason });
      },
    });
  }, []);

  const close = useCallback(() => {
    const id = session.current;
    session.current = null;
    if (id) closeConsole(id);
  }, []);

  /** False once the panel is gone: a console:open answering after that is closed at once. */
  const alive = useRef(true);
  // The panel going away (or showing another proxy: see ConsolePanel's key) ends the session.
  useEffect(() => {
    alive.current = true;
    return () => {
      alive.current = false;
      close();
    };
  }, [close]);

  const connect = useCallback(
    async (force: boolean) => {
      close();
      setState({ phase: 'connecting', force });
      early.current = [];
      earlyClosed.current = [];
      try {
        const opened = await openConsole(name, force);
        if (!alive.current) return closeConsole(opened.session);
        for (const p of early.current ?? []) if (p.session === opened.session) terminal.current?.write(p.data);
        const ended = earlyClosed.current?.find((c) => c.session === opened.session);
        if (ended) return setState({ phase: 'closed', reason: ended.reason });
        session.current = opened.session;
        setState({ phase: 'connected', session: opened.session, host: opened.host });
        terminal.current?.focus();
      } catch (err) {
        const message = messageOf(err);
        setState(isErrorNamed(err, ErrorNames.consoleBusy) ? { phase: 'busy', message } : { phase: 'error', message });
      } finally {
        early.current = null;
        earlyClosed.current = null;
      }
    },
    [name, close],
  );

  const disconnect = useCallback(() => {
    close();
    setState({ phase: 'closed', reason: 'disconnected' });
  }, [close]);

  const connected = state.phase === 'connected';
  const connecting = state.phase === 'connecting';
  return (
    <section className="console-panel" aria-label={`Serial console of ${name}`}>
      <div className="console-bar" ref={bar}>
        {connected ? (
          <button type="button" aria-label={`Disconnect from the console of ${name}`} onClick={disconnect}>
            Disconnect
          </button>
        ) : (
          <button
            type="button"
            className="primary"
            aria-label={`Connect to the console of ${name}`}
            disabled={connecting}
            onClick={() => void connect(false)}
          >
            Connect
          </button>
        )}
        {state.phase === 'busy' && (
          <button
            type="button"
            className="danger"
            aria-label={`Take over the console of ${name} (disconnects the other client)`}
            onClick={() => void connect(true)}
          >
            Take over
          </button>
        )}
        <span role="status" aria-live="polite" className={`console-state console-${state.phase}`}>
          {stateLine(state, name)}
        </span>
      </div>
      <div ref={box} className="console-term" aria-label={`Terminal of ${name}`} role="region" />
    </section>
  );
}
