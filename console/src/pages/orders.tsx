// Orders: placed → approved → delivered, or cancelled; each row offers the moves its state allows.
import { ORDER_STATUSES, type Order, type OrderStatus, type Pet } from '@petstore/client';
import { useState } from 'preact/hooks';
import {
  Alert,
  ExportCsv,
  Field,
  Missing,
  NO_PROBLEM,
  PageHeading,
  Pager,
  type Problem,
  formatTime,
  problemOf,
  useLive,
  useLoad,
  useOutcome,
  usePager,
  usePetsById,
  useCustomersById,
  useSession,
} from '../ui.tsx';
import { petHref } from '../route.ts';

/** The order lifecycle as the API documents it (docs/api.md): the moves from each state, and the button for each. */
const NEXT: Readonly<Record<OrderStatus, readonly OrderStatus[]>> = {
  placed: ['approved', 'cancelled'],
  approved: ['delivered', 'cancelled'],
  delivered: [],
  cancelled: [],
};
const MOVE: Readonly<Record<OrderStatus, string>> = { placed: 'Place', approved: 'Approve', delivered: 'Deliver', cancelled: 'Cancel order' };

export function OrdersPage() {
  const { session } = useSession();
  const { client } = session;
  const [status, setStatus] = useState<OrderStatus | ''>('');
  const pager = usePager([status]);
  const orders = useLoad(() => client.orders.list({ limit: 20, cursor: pager.cursor, status: status || undefined }), [pager.cursor, status]);
  useLive((e) => e.type.startsWith('order.'), orders.reload);
  const pets = usePetsById(orders.data?.data.map((o) => o.petId) ?? []);
  const customers = useCustomersById(orders.data?.data.map((o) => o.customerId) ?? []);
  const [petId, setPetId] = useState('');
  const [problem, setProblem] = useState<Problem>(NO_PROBLEM);
  const outcome = useOutcome();
  const canWrite = session.can('orders:write');

  const place = async (e: Event) => {
    e.preventDefault();
    outcome.start();
    setProblem(NO_PROBLEM);
    try {
      const order = await client.orders.place({ petId: Number(petId) });
      setPetId('');
      outcome.succeeded(`Placed order ${order.id} for pet ${order.petId}.`);
      orders.reload();
    } catch (err) {
      setProblem(problemOf(err));
    }
  };
  const move = async (order: Order, to: OrderStatus) => {
    outcome.start();
    setProblem(NO_PROBLEM);
    try {
      const saved = await client.orders.update(order.id, { status: to });
      outcome.succeeded(`Order ${saved.id} is ${saved.status}.`);
      orders.reload();
    } catch (err) {
      outcome.failed(err);
    }
  };

  return (
    <section aria-labelledby="page-title">
      <PageHeading>Orders</PageHeading>
      {canWrite ? (
        <form class="card inline" aria-label="Place order" onSubmit={place}>
          <Field id="order-pet" label="Pet ID" error={problem.fields.petId}>
            {(a11y) => <input {...a11y} inputMode="numeric" pattern="[0-9]+" value={petId} onInput={(e) => setPetId(e.currentTarget.value)} required />}
          </Field>
          <button type="submit" class="primary">
            Place order
          </button>
          {problem.general && <Alert>{problem.general}</Alert>}
        </form>
      ) : (
        <Missing scope="orders:write" what="place or move orders" />
      )}
      {outcome.view}
      <form class="filters" aria-label="Filter orders" onSubmit={(e) => e.preventDefault()}>
        <label>
          Status{' '}
          <select value={status} onChange={(e) => setStatus(e.currentTarget.value as OrderStatus | '')}>
            <option value="">any</option>
            {ORDER_STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
      </form>
      <ExportCsv what="orders" start={() => client.orders.exportCsv.withResponse({ status: status || undefined })} />
      {orders.error && <Alert>{orders.error}</Alert>}
      <table>
        <caption>Orders</caption>
        <thead>
          <tr>
            <th scope="col">ID</th>
            <th scope="col">Pet</th>
            <th scope="col">Status</th>
            <th scope="col">Customer</th>
            <th scope="col">Updated</th>
            {canWrite && <th scope="col">Actions</th>}
          </tr>
        </thead>
        <tbody>
          {orders.data?.data.map((order) => (
            <tr key={order.id}>
              <td data-label="ID">{order.id}</td>
              <td data-label="Pet">
                <PetLink id={order.petId} pet={pets.get(order.petId)} />
              </td>
              <td data-label="Status">
                <span class={`badge ${order.status}`}>{order.status}</span>
              </td>
              <td data-label="Customer">{order.customerId === undefined ? '—' : (customers.get(order.customerId)?.name ?? `Customer ${order.customerId}`)}</td>
              <td data-label="Updated">{formatTime(order.updatedAt)}</td>
              {canWrite && (
                <td data-label="Actions" class="actions">
                  {NEXT[order.status].map((to) => (
                    <button key={to} type="button" class={to === 'cancelled' ? 'danger' : ''} onClick={() => move(order, to)}>
                      {MOVE[to]}
                    </button>
                  ))}
                </td>
              )}
            </tr>
          ))}
          {orders.data?.data.length === 0 && (
            <tr>
              <td colSpan={canWrite ? 6 : 5}>No orders.</td>
            </tr>
          )}
        </tbody>
      </table>
      <Pager pager={pager} nextCursor={orders.data?.nextCursor} label="Orders" />
    </section>
  );
}

/** The animal of an order: its first photo as a thumbnail and its name, linking to its page ("Pet N" once withdrawn). */
function PetLink({ id, pet }: { id: number; pet: Pet | undefined }) {
  const photo = pet?.photoUrls?.[0];
  return (
    <a href={petHref(id)}>
      {photo && <img class="row-thumb" src={`${photo}/thumb`} alt="" loading="lazy" />}
      {pet ? `${pet.name} (pet ${id})` : `Pet ${id}`}
    </a>
  );
}
