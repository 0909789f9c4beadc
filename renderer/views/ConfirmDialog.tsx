/**
 * A modal dialog on the native <dialog> (showModal): focus stays inside, Escape cancels,
 * Enter on the focused button confirms. The cancel button has focus first, so a stray
 * Enter never deletes anything.
 */
import { type ReactNode, useEffect, useId, useRef } from 'react';

export function Modal({
  labelledBy,
  onClose,
  children,
  className,
}: {
  labelledBy: string;
  onClose: () => void;
  children: ReactNode;
  className?: string;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const close = useRef(onClose);
  useEffect(() => {
    close.current = onClose;
  });
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (!dialog.open) dialog.showModal();
    const onCancel = (e: Event) => {
      e.preventDefault();
      close.current();
    };
    dialog.addEventListener('cancel', onCancel);
    return () => {
      dialog.removeEventListener('cancel', onCancel);
      if (dialog.open) dialog.close();
    };
  }, []);
  return (
    <dialog ref={ref} aria-labelledby={labelledBy} className={className}>
      {children}
    </dialog>
  );
}

export function ConfirmDialog({
  title,
  confirmLabel,
  onConfirm,
  onCancel,
  children,
}: {
  title: string;
  confirmLabel: string;
  onConfirm: () => void;
  onCancel: () => void;
  children: ReactNode;
}) {
  const id = useId();
  return (
    <Modal labelledBy={id} onClose={onCancel} className="confirm">
      <h2 id={id}>{title}</h2>
      {children}
      <div className="dialog-actions">
        <button type="button" autoFocus onClick={onCancel}>
          Cancel
        </button>
        <button type="button" className="danger" onClick={onConfirm}>
          {confirmLabel}
        </button>
      </div>
    </Modal>
  );
}
