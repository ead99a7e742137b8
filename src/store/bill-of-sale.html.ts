// The bill of sale as a printable HTML document (docs/api.md, "Bill of sale"). Every value from the
// database or the configuration goes through `escapeHtml`; the page has no script and no inline style
// (its stylesheet is /print/bill-of-sale.css), so it is served under the console's strict CSP.
import type { CustomerRecord } from '../customers/customer.schemas.ts';
import type { HealthRecord } from '../health/health.schemas.ts';
import { recordLines } from '../pets/pet.record-words.ts';
import type { Pet, Price } from '../pets/pet.schemas.ts';
import type { Order } from './order.schemas.ts';

/** Where the page's print stylesheet is served, with no key (it holds no data). */
export const BILL_OF_SALE_CSS_PATH = '/print/bill-of-sale.css';

/** A4 and Letter alike: the page size is the printer's, the margins fit both. */
export const BILL_OF_SALE_CSS = `@page { size: auto; margin: 15mm; }
body { font: 11pt/1.4 Georgia, "Times New Roman", serif; color: #000; max-width: 180mm; margin: 0 auto; padding: 8mm; }
h1 { font-size: 18pt; margin: 0 0 2mm; }
h2 { font-size: 12pt; margin: 6mm 0 2mm; border-bottom: 1px solid #000; }
dl { display: grid; grid-template-columns: 45mm 1fr; gap: 1mm 4mm; margin: 0; }
dt { font-weight: bold; }
dd { margin: 0; white-space: pre-wrap; }
table { border-collapse: collapse; width: 100%; font-size: 10pt; }
th, td { border: 1px solid #000; padding: 1mm 2mm; text-align: left; vertical-align: top; }
.disclosure { white-space: pre-wrap; font-size: 10pt; }
.signatures { display: grid; grid-template-columns: 1fr 1fr; gap: 12mm; margin-top: 14mm; }
.signatures p { border-top: 1px solid #000; padding-top: 1mm; margin: 0; }
.void { text-decoration: line-through; }
@media screen { body { background: #fff; } }
@media print { h2 { break-after: avoid; } tr { break-inside: avoid; } }
`;

/** Text as HTML character data or an attribute value: the five characters HTML gives a meaning escaped. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** What the store prints about itself (STORE_NAME, STORE_ADDRESS, STORE_LICENCE, SALE_DISCLOSURE_FILE). */
export interface StoreParticulars {
  readonly name: string;
  readonly address: string;
  readonly licence: string;
  readonly disclosure: string;
}

export interface BillOfSale {
  readonly store: StoreParticulars;
  readonly order: Order;
  /** The buyer as the store holds them (an erased buyer: what the sale record keeps). */
  readonly buyer: CustomerRecord | undefined;
  /** The animal; undefined once withdrawn. */
  readonly pet: Pet | undefined;
  readonly category: string | undefined;
  readonly health: readonly HealthRecord[];
}

const money = (p: Price | undefined) => (p === undefined ? '—' : `${(p.amount / 100).toFixed(2)} ${p.currency}`);
const row = (label: string, value: string) => `<dt>${escapeHtml(label)}</dt><dd>${escapeHtml(value)}</dd>`;

function addressLines(c: CustomerRecord | undefined): string {
  const a = c?.address;
  if (a === undefined) return '—';
  return [a.line1, a.line2, `${a.postalCode} ${a.city}`, a.region, a.country].filter((l) => l !== undefined).join('\n');
}

/** The whole document: UTF-8 HTML, no script, no inline style. */
export function renderBillOfSale(b: BillOfSale): string {
  const { store, order, buyer, pet } = b;
  const soldOn = order.status === 'delivered' ? order.updatedAt : order.createdAt;
  const petRows = [
    row('Animal', pet === undefined ? `animal ${order.petId} (withdrawn)` : `${pet.name} (no. ${pet.id})`),
    row('Kind', b.category ?? '—'),
    ...(pet === undefined ? [] : recordLines(pet).flatMap(([label, words]) => (words === undefined ? [] : [row(label, words)]))),
  ];
  const health =
    b.health.length === 0
      ? '<p>No health records.</p>'
      : `<table><thead><tr><th>Date</th><th>Kind</th><th>What</th><th>Batch</th><th>Given by</th><th>Next due</th></tr></thead><tbody>${b.health
          .map(
            (h) =>
              `<tr${h.voided === undefined ? '' : ' class="void"'}><td>${escapeHtml(h.date)}</td><td>${escapeHtml(h.kind)}</td><td>${escapeHtml(h.name)}</td><td>${escapeHtml(h.batch ?? '')}</td><td>${escapeHtml(h.givenBy)}</td><td>${escapeHtml(h.nextDue ?? '')}</td></tr>`,
          )
          .join('')}</tbody></table>`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Bill of sale — order ${order.id}</title>
<link rel="stylesheet" href="${BILL_OF_SALE_CSS_PATH}">
</head>
<body>
<h1>Bill of sale</h1>
<p>Order no. ${order.id} · ${escapeHtml(soldOn.slice(0, 10))}</p>
<h2>Seller</h2>
<dl>${row('Store', store.name)}${row('Address', store.address || '—')}${row('Licence', store.licence || '—')}</dl>
<h2>Buyer</h2>
<dl>${row('Name', buyer?.name ?? (order.customerId === undefined ? 'not recorded' : '—'))}${row('Address', addressLines(buyer))}</dl>
<h2>Animal</h2>
<dl>${petRows.join('')}</dl>
<h2>Health record</h2>
${health}
<h2>Sale</h2>
<dl>${row('Date', soldOn)}${row('Method', order.method ?? 'sale')}${row('Status', order.status)}${row('Price', money(order.price))}${row('Deposit paid', money(order.deposit))}</dl>
<h2>Health disclosure</h2>
<p class="disclosure">${escapeHtml(store.disclosure)}</p>
<div class="signatures"><p>Seller</p><p>Buyer</p></div>
</body>
</html>
`;
}
