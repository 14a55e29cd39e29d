// htmx 2 as a site loads it. Posting to another origin needs selfRequestsOnly off (htmx 2 refuses it by default).
import htmx from "htmx.org";

htmx.config.selfRequestsOnly = false;
