// Where the console is and which page it shows. The pages are hash routes (`/console/#/orders`,
// `#/health/12`); an animal has its own address, `/console/pets/{id}`, which the service answers
// with the console's page too (src/http/ops/console.ts), so it can be bookmarked, shared and
// reloaded. Links within the console move without reloading (history.pushState).
import { useEffect, useState } from 'preact/hooks';

/** An animal's page in the path: `…/pets/12` (the service serves the console there). */
const PET_PATH = /pets\/(\d+)\/?$/;

/** The console's own address (`…/console/`), from any of its pages: a proxy's path prefix is kept. */
export function consoleRoot(): string {
  return consoleRootOf(location.href);
}

/** consoleRoot for the page at `href`. */
export function consoleRootOf(href: string): string {
  const url = new URL(href);
  url.hash = '';
  url.search = '';
  url.pathname = url.pathname.replace(PET_PATH, '');
  return new URL('.', url).href;
}

/** The address of an animal's page. */
export const petHref = (id: number): string => `${consoleRoot()}pets/${id}`;
/** The address of a page of the navigation (`orders`, `health/12`). */
export const pageHref = (path: string): string => `${consoleRoot()}#/${path}`;

/** An animal's page, or a page of the navigation (`health`) with the rest of its hash (`['12']`). */
export type Route = { readonly kind: 'pet'; readonly petId: number } | { readonly kind: 'page'; readonly page: string; readonly rest: readonly string[] };

export function currentRoute(): Route {
  return routeOf(location.pathname, location.hash);
}

/** The route of the page at `pathname` with `hash`. */
export function routeOf(pathname: string, hash: string): Route {
  const pet = PET_PATH.exec(pathname);
  if (pet) return { kind: 'pet', petId: Number(pet[1]) };
  const [page = '', ...rest] = hash.replace(/^#\/?/, '').split('/');
  return { kind: 'page', page: page || 'pets', rest };
}

const MOVED = 'console:moved';

/** The route, following the hash, the browser's Back and Forward, and the console's own links. */
export function useRoute(): Route {
  const [route, setRoute] = useState(currentRoute);
  useEffect(() => {
    const onChange = () => setRoute(currentRoute());
    for (const type of ['hashchange', 'popstate', MOVED]) addEventListener(type, onChange);
    return () => {
      for (const type of ['hashchange', 'popstate', MOVED]) removeEventListener(type, onChange);
    };
  }, []);
  return route;
}

/** Goes to `href` (a console address) without reloading the console. */
export function navigate(href: string): void {
  if (href === location.href) return;
  history.pushState(null, '', href);
  dispatchEvent(new Event(MOVED));
}

/**
 * A click on a link to another console address moves there without a reload (which would sign in
 * again); a click meant for a new tab, a download or another site is left to the browser.
 */
export function followConsoleLinks(e: MouseEvent): void {
  if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  const a = (e.target as Element | null)?.closest?.('a');
  if (!a || a.target || a.hasAttribute('download')) return;
  const href = a.href;
  if (!href.startsWith(consoleRoot())) return;
  e.preventDefault();
  navigate(href);
}
