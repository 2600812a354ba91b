//! What a lock wait tells and what a holder says it does, set by the
//! front door for an operation (a task-local scope) or for the whole
//! process (the CLI runs one command).
//!
//! Locks are taken deep inside operations (a checkout, a tool call, an
//! import) that know nothing of terminals or windows, so the front door
//! hands its wishes down this way instead of through every signature: who
//! hears of a wait ([`LockContext::on_wait`]), what stops one
//! ([`LockContext::cancel_on`]; dropping an async wait stops it too), and
//! the words a holder writes for others' waits ([`LockContext::doing`]).
//! A scope's unset parts come from the enclosing scope, then from the
//! process's context. Blocking code (a `spawn_blocking` closure) sees only
//! the process's context, as task-locals do not cross threads.

use std::sync::{Arc, RwLock};

use tokio_util::sync::CancellationToken;

use super::Waiting;

/// Receives each wait, once it has lasted a moment and again whenever
/// the holder it names changes.
type OnWait = Arc<dyn Fn(&Waiting) + Send + Sync>;

/// See the module docs.
#[derive(Clone, Default)]
pub struct LockContext {
    pub(super) on_wait: Option<OnWait>,
    pub(super) cancel: Option<CancellationToken>,
    pub(super) doing: Option<String>,
}

impl std::fmt::Debug for LockContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LockContext")
            .field("on_wait", &self.on_wait.is_some())
            .field("cancel", &self.cancel)
            .field("doing", &self.doing)
            .finish()
    }
}

tokio::task_local! {
    static CURRENT: LockContext;
}

static PROCESS: RwLock<LockContext> = RwLock::new(LockContext {
    on_wait: None,
    cancel: None,
    doing: None,
});

impl LockContext {
    /// `f` hears of every lock wait that lasts more than a moment.
    pub fn on_wait(mut self, f: impl Fn(&Waiting) + Send + Sync + 'static) -> Self {
        self.on_wait = Some(Arc::new(f));
        self
    }

    /// A wait ends with [`crate::Error::Cancelled`] once `token` is cancelled.
    pub fn cancel_on(mut self, token: CancellationToken) -> Self {
        self.cancel = Some(token);
        self
    }

    /// What the locks taken here are held for, as a waiter will read it:
    /// "a tool call (csv.hello)".
    pub fn doing(mut self, what: impl Into<String>) -> Self {
        self.doing = Some(what.into());
        self
    }

    /// Runs `fut` in this context.
    pub async fn scope<F: Future>(self, fut: F) -> F::Output {
        let context = self.over(Self::current());
        CURRENT.scope(context, fut).await
    }

    /// Makes this the process's context: the one every wait and holder of
    /// this process falls back on.
    pub fn set_for_process(self) {
        *PROCESS.write().unwrap_or_else(std::sync::PoisonError::into_inner) = self;
    }

    /// The context here: the task's scope over the process's.
    pub fn current() -> Self {
        let process = PROCESS
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone();
        CURRENT.try_with(|c| c.clone().over(process.clone())).unwrap_or(process)
    }

    /// This context, its unset parts taken from `base`.
    fn over(self, base: Self) -> Self {
        Self {
            on_wait: self.on_wait.or(base.on_wait),
            cancel: self.cancel.or(base.cancel),
            doing: self.doing.or(base.doing),
        }
    }

    pub(super) fn is_cancelled(&self) -> bool {
        self.cancel.as_ref().is_some_and(CancellationToken::is_cancelled)
    }

    pub(super) fn tell(&self, waiting: &Waiting) {
        tracing::info!("{waiting}");
        if let Some(f) = &self.on_wait {
            f(waiting);
        }
    }
}
