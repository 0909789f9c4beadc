/** Names whose proxies these are, in a confirmation: the person is about to act on someone else's. */
export function OthersNote({ others }: { others: Array<{ name: string; owner: string }> }) {
  if (!others.length) return null;
  return (
    <p className="warning" role="note">
      Not yours:{' '}
      {others.map((o, i) => (
        <span key={o.name}>
          {i > 0 && ', '}
          <code>{o.name}</code> was launched by <strong>{o.owner}</strong>
        </span>
      ))}
      . Make sure they agree.
    </p>
  );
}
