import { formActions, type FormActions } from './action.js';
import { leaving, type Leaving } from './leave.js';
import { pageBase, type CheckoutDeps, type PageBase } from './page-base.js';
import { rendering, type Rendering } from './render.js';

/** What the page's route modules share: built once by routes.ts, each part from the ones before it. */
export type PageContext = PageBase & Rendering & Leaving & FormActions;

export function pageContext(deps: CheckoutDeps): PageContext {
  const base = pageBase(deps);
  const shown = { ...base, ...rendering(base) };
  const moving = { ...shown, ...leaving(shown) };
  return { ...moving, ...formActions(moving) };
}
