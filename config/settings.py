"""Webclip settings: one module, every knob an env var with a default that works on a laptop.

The embedded defaults need no server: SQLite, a filesystem Celery broker, a file-based cache and
mail written to a local mailbox folder. Production sets DATABASE_URL, CELERY_BROKER_URL,
CACHE_URL and an email provider; `base.checks` refuses a production configuration that
cannot work.
"""

from __future__ import annotations

import os
from pathlib import Path

import environ
from django.core.exceptions import ImproperlyConfigured

from base.env import env_bool, env_int, env_list, env_str

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(env_str("WEBCLIP_VAR_DIR", str(BASE_DIR / "var")))

# --- Core -------------------------------------------------------------------------------------

DEBUG = env_bool("DEBUG", True)
TESTING = env_bool("WEBCLIP_TESTING", False)
_DEV_SECRET = "dev-only-insecure-secret-key-do-not-use-in-production-0123456789"  # noqa: S105
SECRET_KEY = env_str("SECRET_KEY") or (_DEV_SECRET if DEBUG or TESTING else "")
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])
# `make run` serves the app on WEBCLIP_PORT and the demo news site on WEBCLIP_DEMO_PORT.
WEBCLIP_PORT = env_int("WEBCLIP_PORT", 8000, minimum=1)
WEBCLIP_DEMO_PORT = env_int("WEBCLIP_DEMO_PORT", 8100, minimum=1)
for _name, _port in (("WEBCLIP_PORT", WEBCLIP_PORT), ("WEBCLIP_DEMO_PORT", WEBCLIP_DEMO_PORT)):
    if _port > 65535:
        raise ImproperlyConfigured(f"{_name} must be a TCP port (1-65535), got {_port}")
SITE_URL = env_str("SITE_URL", f"http://127.0.0.1:{WEBCLIP_PORT}").rstrip("/")
SITE_NAME = env_str("SITE_NAME", "Webclip")
# The Sites framework's one row: accounts sets its domain and name from SITE_URL and SITE_NAME
# after every migrate, so allauth's mail says the same name as the pages.
SITE_ID = 1

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django.contrib.sites",  # allauth names the site in mail from it; accounts sets it on migrate
    "django.contrib.humanize",
    "django.contrib.syndication",
    "allauth",
    "allauth.account",
    "anymail",
    "csp",
    "ninja",  # the REST API; its Swagger UI assets are served from its static files, no CDN
    "django_celery_beat",
    "base",  # the start-up checks of Webclip's settings
    "accounts",
    "clipping",
    "crawler",
    "ops",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "accounts.middleware.PreferencesMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "csp.middleware.CSPMiddleware",
    "allauth.account.middleware.AccountMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "config.context_processors.site",
                "accounts.context_processors.preferences",
            ],
        },
    },
]

# --- Database ---------------------------------------------------------------------------------

DATABASE_URL = env_str("DATABASE_URL", f"sqlite:///{VAR_DIR / 'webclip.sqlite3'}")
try:
    _db = environ.Env.db_url_config(DATABASE_URL)
except Exception as exc:  # django-environ raises several types for a malformed URL
    raise ImproperlyConfigured(f"DATABASE_URL is not a database URL: {exc}") from exc
if _db["ENGINE"] == "django.db.backends.sqlite3":
    # WAL and IMMEDIATE transactions let web, worker and beat share one SQLite file.
    _db["OPTIONS"] = {
        "timeout": 30,
        "transaction_mode": "IMMEDIATE",
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }
else:
    _db["CONN_MAX_AGE"] = env_int("DATABASE_CONN_MAX_AGE", 60, minimum=0)
    _db["CONN_HEALTH_CHECKS"] = True
if TESTING:
    # Several test runs may share one PostgreSQL server; each process gets its own test database.
    _db["TEST"] = {"NAME": f"test_webclip_{os.getpid()}"}
DATABASES = {"default": _db}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
# `manage.py backup` dumps every table in it: JSON Lines that round-trip exactly.
SERIALIZATION_MODULES = {"exactjsonl": "ops.exactjsonl"}

# --- Cache (rate limits and the keyword index version live here) -------------------------------

CACHE_URL = env_str("CACHE_URL", f"filecache://{VAR_DIR / 'cache'}")
try:
    _cache = environ.Env.cache_url_config(CACHE_URL)
except Exception as exc:
    raise ImproperlyConfigured(f"CACHE_URL is not a cache URL: {exc}") from exc
_cache["KEY_PREFIX"] = env_str("CACHE_KEY_PREFIX", "webclip")
if TESTING and _cache["BACKEND"].endswith("RedisCache") and os.environ.get("PYTEST_XDIST_WORKER"):
    # Parallel test processes each get their own Redis database, so clearing one never hits another.
    _worker = int(os.environ["PYTEST_XDIST_WORKER"].removeprefix("gw") or 0)
    _cache["LOCATION"] = _cache["LOCATION"].rsplit("/", 1)[0] + f"/{10 + _worker}"
CACHES = {"default": _cache}

# --- Auth and accounts (django-allauth) --------------------------------------------------------

AUTH_USER_MODEL = "accounts.User"
AUTHENTICATION_BACKENDS = [
    "django.contrib.auth.backends.ModelBackend",
    "allauth.account.auth_backends.AuthenticationBackend",
]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
if TESTING:
    # Hashing cost is not what the tests measure.
    PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

LOGIN_URL = "account_login"
LOGIN_REDIRECT_URL = "dashboard"
ACCOUNT_LOGOUT_REDIRECT_URL = "home"
# A password-reset link works for one hour (Django's default is three days).
PASSWORD_RESET_TIMEOUT = 3600
ACCOUNT_ADAPTER = "accounts.adapter.AccountAdapter"
ACCOUNT_LOGIN_METHODS = {"email"}
ACCOUNT_SIGNUP_FIELDS = ["email*", "password1*", "password2*"]
ACCOUNT_USER_MODEL_USERNAME_FIELD = None
ACCOUNT_UNIQUE_EMAIL = True
ACCOUNT_EMAIL_VERIFICATION = "mandatory"
ACCOUNT_CONFIRM_EMAIL_ON_GET = False
ACCOUNT_LOGIN_ON_EMAIL_CONFIRMATION = True
ACCOUNT_CHANGE_EMAIL = True
ACCOUNT_PREVENT_ENUMERATION = True
ACCOUNT_FORMS = {"signup": "accounts.forms.SignupForm"}
ACCOUNT_LOGOUT_ON_GET = False
ACCOUNT_EMAIL_SUBJECT_PREFIX = f"[{SITE_NAME}] "
ACCOUNT_DEFAULT_HTTP_PROTOCOL = "https" if SITE_URL.startswith("https") else "http"
# Rate limits key on REMOTE_ADDR; behind N reverse proxies set TRUSTED_PROXY_COUNT=N so the
# client address is read from X-Forwarded-For, never from a header a client can forge.
ALLAUTH_TRUSTED_PROXY_COUNT = env_int("TRUSTED_PROXY_COUNT", 0, minimum=0)
ACCOUNT_RATE_LIMITS = {
    "login": env_str("RATE_LIMIT_LOGIN", "30/m/ip"),
    "login_failed": env_str("RATE_LIMIT_LOGIN_FAILED", "10/m/ip,5/5m/key"),
    "signup": env_str("RATE_LIMIT_SIGNUP", "20/m/ip"),
    "reset_password": env_str("RATE_LIMIT_RESET_PASSWORD", "20/m/ip,5/m/key"),
    "reset_password_from_key": "20/m/ip",
    "confirm_email": env_str("RATE_LIMIT_CONFIRM_EMAIL", "1/3m/key"),
    "change_password": "5/m/user",
    "manage_email": "10/m/user",
    "reauthenticate": "10/m/user",
}

# --- Internationalisation ----------------------------------------------------------------------

# The language comes from the account (User.language), else the language switcher's cookie,
# else the browser's Accept-Language; pages and mail are translated in locale/<lang>/.
LANGUAGE_CODE = env_str("LANGUAGE_CODE", "en")
LANGUAGES = [("en", "English"), ("de", "Deutsch"), ("fr", "Français")]
LOCALE_PATHS = [BASE_DIR / "locale"]
# One date style everywhere (pages, mail, admin), in each language's words: config/formats/.
FORMAT_MODULE_PATH = ["config.formats"]
TIME_ZONE = env_str("TIME_ZONE", "UTC")
USE_I18N = True
USE_TZ = True

# --- Static files ------------------------------------------------------------------------------

STATIC_URL = "/static/"
STATIC_ROOT = Path(env_str("STATIC_ROOT", str(BASE_DIR / "staticfiles")))
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG or TESTING
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        )
    },
}

# --- Security headers --------------------------------------------------------------------------

SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
# Sessions are read from the shared cache and written through to the database: no session
# query on most requests, and nobody is logged out when the cache is flushed.
SESSION_ENGINE = env_str("SESSION_ENGINE", "django.contrib.sessions.backends.cached_db")
SESSION_COOKIE_HTTPONLY = True
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", not DEBUG)
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0 if DEBUG else 31536000, minimum=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", not DEBUG)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", not DEBUG)
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", not DEBUG)
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", not DEBUG)
if env_bool("SECURE_PROXY_SSL_HEADER", False):
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'", "data:"],
        "font-src": ["'self'"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    }
}

# Whitenoise answers static requests before any view middleware runs, so django-csp never sees
# them: the same policy and nosniff are added to every static file here.
_STATIC_CSP = "; ".join(
    " ".join([name, *values]) for name, values in CONTENT_SECURITY_POLICY["DIRECTIVES"].items()
)


def _static_security_headers(headers, path: str, url: str) -> None:
    headers["Content-Security-Policy"] = _STATIC_CSP
    headers["X-Content-Type-Options"] = "nosniff"


WHITENOISE_ADD_HEADERS_FUNCTION = _static_security_headers

# --- Email -------------------------------------------------------------------------------------
# EMAIL_PROVIDER: "file" (default: a local mailbox folder, read with `manage.py mailbox` or at
# /mailbox/ while DEBUG), "console", "locmem" (tests), "smtp", or any django-anymail ESP name
# ("mailgun", "postmark", "sendgrid", "amazon_ses", "brevo", "mailjet", "resend", ...). ESP
# settings come from ANYMAIL_* env vars, e.g. ANYMAIL_MAILGUN_API_KEY.

EMAIL_PROVIDER = env_str("EMAIL_PROVIDER", "file").strip().lower()
_BUILTIN_EMAIL = {
    "file": "django.core.mail.backends.filebased.EmailBackend",
    "console": "django.core.mail.backends.console.EmailBackend",
    "locmem": "django.core.mail.backends.locmem.EmailBackend",
    "smtp": "django.core.mail.backends.smtp.EmailBackend",
}
EMAIL_BACKEND = _BUILTIN_EMAIL.get(
    EMAIL_PROVIDER, f"anymail.backends.{EMAIL_PROVIDER}.EmailBackend"
)
EMAIL_FILE_PATH = str(Path(env_str("EMAIL_FILE_PATH", str(VAR_DIR / "mailbox"))))
EMAIL_HOST = env_str("EMAIL_HOST", "localhost")
EMAIL_PORT = env_int("EMAIL_PORT", 25, minimum=1)
EMAIL_HOST_USER = env_str("EMAIL_HOST_USER")
EMAIL_HOST_PASSWORD = env_str("EMAIL_HOST_PASSWORD")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", False)
EMAIL_USE_SSL = env_bool("EMAIL_USE_SSL", False)
EMAIL_TIMEOUT = env_int("EMAIL_TIMEOUT", 20, minimum=1)
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", f"{SITE_NAME} <webclip@localhost>")
SERVER_EMAIL = env_str("SERVER_EMAIL", DEFAULT_FROM_EMAIL)
ANYMAIL = {
    key.removeprefix("ANYMAIL_"): value
    for key, value in os.environ.items()
    if key.startswith("ANYMAIL_")
}
ANYMAIL.setdefault("REQUESTS_TIMEOUT", EMAIL_TIMEOUT)

# --- Celery ------------------------------------------------------------------------------------

CELERY_BROKER_URL = env_str("CELERY_BROKER_URL", "filesystem://")
if TESTING and CELERY_BROKER_URL.startswith("redis://") and os.environ.get("PYTEST_XDIST_WORKER"):
    # Parallel test processes each get their own broker database, so their queues never mix.
    _worker = int(os.environ["PYTEST_XDIST_WORKER"].removeprefix("gw") or 0)
    CELERY_BROKER_URL = CELERY_BROKER_URL.rsplit("/", 1)[0] + f"/{3 + _worker}"
    # Celery prefers the CELERY_BROKER_URL environment variable to any setting: keep them equal.
    os.environ["CELERY_BROKER_URL"] = CELERY_BROKER_URL
CELERY_BROKER_VISIBILITY_TIMEOUT = env_int("CELERY_BROKER_VISIBILITY_TIMEOUT", 3600, minimum=60)
CELERY_BROKER_TRANSPORT_OPTIONS: dict[str, object] = {
    "visibility_timeout": CELERY_BROKER_VISIBILITY_TIMEOUT
}
if CELERY_BROKER_URL.startswith("filesystem://"):
    _broker_dir = VAR_DIR / "broker"
    CELERY_BROKER_TRANSPORT_OPTIONS.update(
        {
            "data_folder_in": str(_broker_dir / "queue"),
            "data_folder_out": str(_broker_dir / "queue"),
            "processed_folder": str(_broker_dir / "processed"),
            "control_folder": str(_broker_dir / "control"),
            "store_processed": False,
            # kombu polls the folder and sleeps `polling_interval` (1 s by default) whenever the
            # worker's prefetch is full or the folder is empty: about one task per second per
            # free slot. At 0.02 s a worker drains ~100 tasks/s with ~15 ms latency for 0.5% of
            # a core while idle (bench/freshness.py --broker); kombu's SQLAlchemy transport on
            # SQLite, tried beside it, drained 33 tasks/s with 0.5 s latency and needs a new
            # dependency. config/broker.py writes each message file whole for this speed.
            "polling_interval": 0.02,
        }
    )
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# Both limits stay below the visibility timeout so a redelivery never races a live task.
CELERY_TASK_SOFT_TIME_LIMIT = env_int("CELERY_TASK_SOFT_TIME_LIMIT", 1500, minimum=10)
CELERY_TASK_TIME_LIMIT = env_int("CELERY_TASK_TIME_LIMIT", 1800, minimum=10)
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)
CELERY_TASK_DEFAULT_QUEUE = "celery"
CELERY_TASK_ROUTES = {
    "crawler.tasks.render_*": {"queue": "render"},
    # Watches are short and frequent: on a queue of their own they never wait behind the long
    # crawl runs that may hold every slot of a crawl worker.
    "crawler.tasks.dispatch_due_watches": {"queue": "watch"},
    "crawler.tasks.watch_site": {"queue": "watch"},
    "crawler.tasks.*": {"queue": "crawl"},
    "clipping.tasks.*": {"queue": "publish"},
    "accounts.tasks.*": {"queue": "publish"},
}
CELERY_BEAT_SCHEDULER = "django_celery_beat.schedulers:DatabaseScheduler"
CELERY_TIMEZONE = "UTC"
CELERY_WORKER_ENABLE_REMOTE_CONTROL = not CELERY_BROKER_URL.startswith("filesystem://")

# --- Webclip -----------------------------------------------------------------------------------

WEBCLIP_NLTK_DATA = env_str("WEBCLIP_NLTK_DATA", str(VAR_DIR / "nltk_data"))
os.environ.setdefault("WEBCLIP_NLTK_DATA", WEBCLIP_NLTK_DATA)
WEBCLIP_ADMIN_EMAIL = env_str("WEBCLIP_ADMIN_EMAIL", "admin@example.com")

# --- Crawler and clipping ---------------------------------------------------------------------
# The apps read their own settings (CRAWLER_*, DEEPWEB_*, XCRAWL_* in crawler/conf.py, CLIPPING_*
# in clipping/conf.py), each default stated there once; a Django setting of the same name, as
# tests set them, wins over the environment. base/checks.py names unknown or malformed ones.

# --- Logging -----------------------------------------------------------------------------------

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    "loggers": {"django.db.backends": {"level": "WARNING"}},
}
