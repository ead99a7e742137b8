// Inventory: how many pets are in each status, as numbers and as a small bar chart, and the stock
// value: what the available pets are worth, per currency.
import { formatMoney } from '../money.ts';
import { PageHeading, Alert, useLive, useLoad, useSession } from '../ui.tsx';
import { PET_STATUSES } from '@petstore/client';

export function InventoryPage() {
  const { session } = useSession();
  const inventory = useLoad(() => session.client.inventory.get(), []);
  useLive((e) => e.type.startsWith('pet.') || e.type.startsWith('order.'), inventory.reload);
  const counts = inventory.data;
  const max = Math.max(1, ...(counts ? PET_STATUSES.map((s) => counts[s]) : [1]));
  const summary = counts ? PET_STATUSES.map((s) => `${counts[s]} ${s}`).join(', ') : '';
  return (
    <section aria-labelledby="page-title">
      <PageHeading>Inventory</PageHeading>
      {inventory.error && <Alert>{inventory.error}</Alert>}
      {counts && (
        <>
          <dl class="counts">
            {PET_STATUSES.map((s) => (
              <div key={s} class={`count ${s}`}>
                <dt>{s}</dt>
                <dd data-status={s}>{counts[s]}</dd>
              </div>
            ))}
          </dl>
          <h2>Stock value</h2>
          <p class="hint">What the available pets are worth (their prices added up; pets without a price count as nothing).</p>
          <dl class="counts value">
            {Object.entries(counts.availableValue).map(([currency, amount]) => (
              <div key={currency} class="count">
                <dt>{currency}</dt>
                <dd data-currency={currency}>{formatMoney(amount, currency)}</dd>
              </div>
            ))}
          </dl>
          <svg class="chart" role="img" aria-label={`Pets by status: ${summary}`} viewBox="0 0 320 130" width="320" height="130">
            {PET_STATUSES.map((s, i) => {
              const height = Math.round((counts[s] / max) * 75);
              return (
                <g key={s}>
                  <rect class={`bar ${s}`} x={20 + i * 100} y={100 - height} width="60" height={height} />
                  <text x={50 + i * 100} y="118" text-anchor="middle">
                    {s}
                  </text>
                  <text x={50 + i * 100} y={95 - height} text-anchor="middle">
                    {counts[s]}
                  </text>
                </g>
              );
            })}
          </svg>
        </>
      )}
    </section>
  );
}
