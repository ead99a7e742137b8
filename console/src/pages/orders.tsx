// Orders: placed → approved → delivered, or cancelled; each row offers the moves its state allows.
import { ORDER_STATUSES, type Order, type OrderStatus, type Pet, type SaleMethod } from '@petstore/client';
import { useEffect, useRef, useState } from 'preact/hooks';
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
import { parseAmount } from '../money.ts';
import { type Choice, Pick } from '../pick.tsx';

/** The order lifecycle as the API documents it (docs/api.md): the moves from each state, and the button for each. */
const NEXT: Readonly<Record<OrderStatus, readonly OrderStatus[]>> = {
  placed: ['approved', 'cancelled'],
  approved: ['delivered', 'cancelled'],
  delivered: [],
  cancelled: [],
};
/** How an animal leaves the store, in words (a Record over the API's type: a new method fails to compile until it is worded). */
const METHOD_WORDS: Readonly<Record<SaleMethod, string>> = { sale: 'Sale', adoption: 'Adoption', transfer: 'Transfer' };
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
  const outcome = useOutcome();
  const canWrite = session.can('orders:write');
  const canPrint = session.can('customers:read');
  const [bill, setBill] = useState<{ orderId: number; html: string } | undefined>();
  const printable = (order: Order) => canPrint && order.customerId !== undefined && order.status !== 'cancelled';
  const openBill = async (order: Order) => {
    outcome.start();
    try {
      // The document needs the key, so it is read like any call and shown in a frame of this page
      // (srcdoc): the frame keeps the console's CSP and resolves the stylesheet's path against it.
      const blob = await client.orders.billOfSale(order.id);
      setBill({ orderId: order.id, html: await blob.text() });
    } catch (err) {
      outcome.failed(err);
    }
  };

  const move = async (order: Order, to: OrderStatus) => {
    outcome.start();
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
      {canWrite ? <PlaceForm outcome={outcome} placed={orders.reload} /> : <Missing scope="orders:write" what="place or move orders" />}
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
            {(canWrite || canPrint) && <th scope="col">Actions</th>}
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
              {(canWrite || canPrint) && (
                <td data-label="Actions" class="actions">
                  {canWrite &&
                    NEXT[order.status].map((to) => (
                      <button key={to} type="button" class={to === 'cancelled' ? 'danger' : ''} onClick={() => move(order, to)}>
                        {MOVE[to]}
                      </button>
                    ))}
                  {printable(order) && (
                    <button type="button" onClick={() => openBill(order)}>
                      Print bill of sale
                    </button>
                  )}
                </td>
              )}
            </tr>
          ))}
          {orders.data?.data.length === 0 && (
            <tr>
              <td colSpan={canWrite || canPrint ? 6 : 5}>No orders.</td>
            </tr>
          )}
        </tbody>
      </table>
      <Pager pager={pager} nextCursor={orders.data?.nextCursor} label="Orders" />
      {bill && <BillOfSale key={bill.orderId} {...bill} close={() => setBill(undefined)} />}
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

/** A day from now at 18:00, as a datetime-local input writes it: a hold's usual "until tomorrow evening". */
function tomorrowEvening(): string {
  const d = new Date(Date.now() + 86_400_000);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T18:00`;
}

/**
 * Places an order, or a hold, for an animal and a customer both chosen by name (the API's `q`
 * search on /v1/pets, available animals only, and on /v1/customers). Without customers:read the
 * customer cannot be looked up: the order is then placed without one (the deprecated form).
 */
function PlaceForm({ outcome, placed }: { outcome: ReturnType<typeof useOutcome>; placed: () => void }) {
  const { session } = useSession();
  const { client } = session;
  const canPickCustomer = session.can('customers:read');
  const [pet, setPet] = useState<Choice | undefined>();
  const [customer, setCustomer] = useState<Choice | undefined>();
  const [method, setMethod] = useState<SaleMethod>('sale');
  const [until, setUntil] = useState(tomorrowEvening);
  const [deposit, setDeposit] = useState('');
  const [generation, setGeneration] = useState(0);
  const [problem, setProblem] = useState<Problem>(NO_PROBLEM);
  const searchPets = async (q: string): Promise<Choice[]> =>
    (await client.pets.search(q, { status: 'available', limit: 8 })).data.map((p) => ({ id: p.id, label: p.name, detail: `pet ${p.id}` }));
  const searchCustomers = async (q: string): Promise<Choice[]> =>
    (await client.customers.list({ q, limit: 8 })).data.map((c) => ({
      id: c.id,
      label: c.name,
      detail: [c.address.city, c.email].filter(Boolean).join(' · '),
    }));
  const chosen = (hold: boolean): boolean => {
    const fields: Record<string, string> = {};
    if (!pet) fields.petId = 'Type a part of its name and choose the animal from the list.';
    if (!customer && (hold || canPickCustomer)) fields.customerId = 'Type a part of their name and choose the customer from the list.';
    setProblem({ fields, general: undefined });
    return Object.keys(fields).length === 0;
  };
  const done = (notice: string) => {
    setPet(undefined);
    setCustomer(undefined);
    setDeposit('');
    setGeneration((g) => g + 1);
    outcome.succeeded(notice);
    placed();
  };
  const placeOrder = async (e: Event) => {
    e.preventDefault();
    outcome.start();
    if (!chosen(false)) return;
    try {
      const order = await client.orders.place({ petId: pet!.id, ...(customer ? { customerId: customer.id } : {}), method });
      done(`Placed order ${order.id}: ${pet!.label} (pet ${order.petId})${customer ? ` for ${customer.label}` : ''}.`);
    } catch (err) {
      setProblem(problemOf(err));
    }
  };
  const placeHold = async () => {
    outcome.start();
    if (!chosen(true)) return;
    const amount = deposit.trim() === '' ? undefined : parseAmount(deposit, undefined);
    if (amount === undefined && deposit.trim() !== '') {
      setProblem({ fields: { deposit: 'An amount, such as 50 or 50.00.' }, general: undefined });
      return;
    }
    try {
      const hold = await client.holds.place(pet!.id, {
        customerId: customer!.id,
        until: new Date(until).toISOString(),
        method,
        ...(amount === undefined ? {} : { deposit: { amount } }),
      });
      done(`Holding ${pet!.label} (pet ${hold.petId}) for ${customer!.label} until ${formatTime(hold.until)}.`);
    } catch (err) {
      setProblem(problemOf(err));
    }
  };
  return (
    <form class="card" aria-label="Place order or hold" onSubmit={placeOrder}>
      <Pick
        key={`pet-${generation}`}
        id="order-pet"
        label="Animal"
        hint="Its name, or a part of it: the available animals that match are listed"
        error={problem.fields.petId}
        search={searchPets}
        chosen={pet}
        onChoose={setPet}
      />
      {canPickCustomer ? (
        <Pick
          key={`customer-${generation}`}
          id="order-customer"
          label="Customer"
          hint="A part of their name, e-mail or telephone"
          error={problem.fields.customerId}
          search={searchCustomers}
          chosen={customer}
          onChoose={setCustomer}
        />
      ) : (
        <Missing scope="customers:read" what="look up customers: the order is placed without one, and no hold can be placed" />
      )}
      <Field id="order-method" label="Method" error={problem.fields.method}>
        {(a11y) => (
          <select {...a11y} value={method} onChange={(e) => setMethod(e.currentTarget.value as SaleMethod)}>
            {Object.entries(METHOD_WORDS).map(([m, words]) => (
              <option key={m} value={m}>
                {words}
              </option>
            ))}
          </select>
        )}
      </Field>
      <div class="buttons">
        <button type="submit" class="primary">
          Place order
        </button>
      </div>
      {canPickCustomer && (
        <fieldset>
          <legend>Or hold the animal for the customer</legend>
          <Field id="hold-until" label="Until" error={problem.fields.until}>
            {(a11y) => <input {...a11y} type="datetime-local" value={until} onInput={(e) => setUntil(e.currentTarget.value)} />}
          </Field>
          <Field id="hold-deposit" label="Deposit (optional)" error={problem.fields.deposit}>
            {(a11y) => <input {...a11y} inputMode="decimal" value={deposit} onInput={(e) => setDeposit(e.currentTarget.value)} />}
          </Field>
          <button type="button" onClick={placeHold}>
            Place hold
          </button>
        </fieldset>
      )}
      {problem.general && <Alert>{problem.general}</Alert>}
    </form>
  );
}

/**
 * The bill of sale as the service renders it, in a frame of the console: sandboxed (no script, no
 * form, no navigation; allow-modals for its print dialog), under the console's own CSP, which it
 * inherits. **Print** prints the frame alone, with the document's print stylesheet.
 */
function BillOfSale({ orderId, html, close }: { orderId: number; html: string; close: () => void }) {
  const frame = useRef<HTMLIFrameElement>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  return (
    <section class="bill" aria-labelledby="bill-title">
      <h2 id="bill-title" tabIndex={-1} ref={heading}>
        Bill of sale of order {orderId}
      </h2>
      <div class="buttons">
        <button type="button" class="primary" onClick={() => frame.current?.contentWindow?.print()}>
          Print
        </button>
        <button type="button" onClick={close}>
          Close
        </button>
      </div>
      <iframe ref={frame} title={`Bill of sale of order ${orderId}`} srcdoc={html} sandbox="allow-same-origin allow-modals" />
    </section>
  );
}
