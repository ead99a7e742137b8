// Choosing one animal or one customer by its name, never by typing an id (issue 37 §4): the ARIA 1.2
// combobox pattern — a text input that asks the API's search as one types, and a listbox of the
// matches, picked with the mouse or with the arrow keys and Enter (Escape closes it).
import { useEffect, useState } from 'preact/hooks';
import { sentence, useLoad } from './ui.tsx';

/** One match: what the form sends (`id`), what the input shows once chosen (`label`), what tells namesakes apart (`detail`). */
export interface Choice {
  readonly id: number;
  readonly label: string;
  readonly detail?: string;
}

/**
 * A labelled type-ahead choice. `search` is the API's list search (`q`), asked 250 ms after typing
 * pauses; typing again drops the choice, so what is sent is always something picked from the list.
 * To empty it after a submit, the form remounts it (a new `key`).
 */
export function Pick(props: {
  id: string;
  label: string;
  hint?: string;
  error?: string | undefined;
  search: (q: string) => Promise<Choice[]>;
  chosen: Choice | undefined;
  onChoose: (choice: Choice | undefined) => void;
}) {
  const { id, label } = props;
  const [typed, setTyped] = useState(props.chosen?.label ?? '');
  const [q, setQ] = useState('');
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(0);
  useEffect(() => {
    const timer = setTimeout(() => setQ(typed.trim()), 250);
    return () => clearTimeout(timer);
  }, [typed]);
  const found = useLoad(async () => (q ? props.search(q) : []), [q]);
  const options = q === typed.trim() ? (found.data ?? []) : [];
  const listId = `${id}-list`;
  const expanded = open && options.length > 0;
  const choose = (choice: Choice) => {
    setTyped(choice.label);
    setOpen(false);
    props.onChoose(choice);
  };
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      setOpen(true);
      if (options.length > 0) setActive((i) => (i + (e.key === 'ArrowDown' ? 1 : options.length - 1)) % options.length);
    } else if (e.key === 'Enter' && expanded) {
      e.preventDefault();
      const choice = options[active];
      if (choice) choose(choice);
    } else if (e.key === 'Escape') setOpen(false);
  };
  const describedBy = [props.hint ? `${id}-hint` : '', props.error ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
  return (
    <div class="field pick">
      <label for={id}>{label}</label>
      <input
        id={id}
        type="text"
        role="combobox"
        autocomplete="off"
        aria-autocomplete="list"
        aria-expanded={expanded}
        aria-controls={listId}
        aria-activedescendant={expanded ? `${listId}-${active}` : undefined}
        aria-invalid={props.error ? true : undefined}
        aria-describedby={describedBy}
        maxLength={200}
        value={typed}
        onInput={(e) => {
          setTyped(e.currentTarget.value);
          setOpen(true);
          setActive(0);
          if (props.chosen) props.onChoose(undefined);
        }}
        onKeyDown={onKeyDown}
        onBlur={() => setOpen(false)}
      />
      <div role="listbox" id={listId} aria-label={`${label}: matches`} hidden={!expanded}>
        {options.map((choice, i) => (
          <div
            key={choice.id}
            id={`${listId}-${i}`}
            role="option"
            tabIndex={-1}
            aria-selected={i === active}
            // mousedown would blur the input and close the list before the click lands.
            onMouseDown={(e) => e.preventDefault()}
            onClick={() => choose(choice)}
            // The keys work on the input (aria-activedescendant); Enter here too, should an option get the focus.
            onKeyDown={(e) => e.key === 'Enter' && choose(choice)}
          >
            {choice.label}
            {choice.detail && <small> {choice.detail}</small>}
          </div>
        ))}
      </div>
      {open && q !== '' && q === typed.trim() && !found.loading && options.length === 0 && !props.chosen && <small class="hint">Nothing matches “{q}”.</small>}
      {props.hint && (
        <small id={`${id}-hint`} class="hint">
          {props.hint}
        </small>
      )}
      {props.error && (
        <p id={`${id}-error`} class="field-error">
          {sentence(label, props.error)}
        </p>
      )}
    </div>
  );
}
