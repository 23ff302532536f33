//! The Android assets beside the v2 schema XML (`android-xml`): the legacy v1 file, the
//! document-type schema the indexer reads, and the manifest entries naming the three
//! (docs/android.md, "The assets the OS indexes"). [`Dispatcher::export`](crate::Dispatcher::export)
//! writes them; `export::android_check` holds the file names and checks them.

use crate::export::android_check::{LEGACY_FILE, SCHEMA_FILE, SERVICE_CLASS, V2_FILE};
use crate::export::escape_text_into;

/// The legacy v1 file: one `<appfunction>` per function, its id and whether it is
/// enabled by default (`functions` in registry order).
pub(crate) fn legacy_xml<'a>(functions: impl Iterator<Item = (&'a str, bool)>) -> String {
    let mut out = String::from(
        "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n<appfunctions>\n",
    );
    for (id, enabled) in functions {
        out.push_str("    <appfunction>\n        <function_id>");
        escape_text_into(id, &mut out);
        out.push_str("</function_id>\n        <enabled_by_default>");
        out.push_str(if enabled { "true" } else { "false" });
        out.push_str("</enabled_by_default>\n    </appfunction>\n");
    }
    out.push_str("</appfunctions>\n");
    out
}

/// The document-type schema: every document type and property the v2 file can use,
/// and every property the platform indexes for `AppFunctionStaticMetadata` (the legacy
/// ones first, kept as the platform defines them).
pub(crate) const SCHEMA_XSD: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<!--
  The AppFunctions document types of this app's app_functions_v2.xml, as the AppSearch
  indexer reads them. Written by appfunctions (the `android-schema` export): do not edit.
  cardinality: 1 repeated, 2 optional, 3 required.
-->
<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">
    <xs:documentType name="AppFunctionNamedDataTypeMetadataDocument">
        <xs:element name="name" cardinality="2" type="xs:string" />
        <xs:element name="dataTypeMetadata" cardinality="2" type="appfn:AppFunctionDataTypeMetadataDocument" />
    </xs:documentType>
    <xs:documentType name="AppFunctionStringPatternDocument">
        <xs:element name="value" cardinality="2" type="xs:string" />
        <xs:element name="type" cardinality="2" type="xs:long" />
    </xs:documentType>
    <xs:documentType name="AppFunctionDataTypeMetadataDocument">
        <xs:element name="type" cardinality="3" type="xs:long" />
        <xs:element name="itemType" cardinality="2" type="appfn:AppFunctionDataTypeMetadataDocument" />
        <xs:element name="properties" cardinality="1" type="appfn:AppFunctionNamedDataTypeMetadataDocument" />
        <xs:element name="allOf" cardinality="1" type="appfn:AppFunctionDataTypeMetadataDocument" />
        <xs:element name="oneOf" cardinality="1" type="appfn:AppFunctionDataTypeMetadataDocument" />
        <xs:element name="required" cardinality="1" type="xs:string" />
        <xs:element name="dataTypeReference" cardinality="2" type="xs:string" />
        <xs:element name="isNullable" cardinality="2" type="xs:boolean" />
        <xs:element name="objectQualifiedName" cardinality="2" type="xs:string" />
        <xs:element name="description" cardinality="2" type="xs:string" />
        <xs:element name="enumValues" cardinality="1" type="xs:string" />
        <xs:element name="patterns" cardinality="1" type="appfn:AppFunctionStringPatternDocument" />
        <xs:element name="format" cardinality="2" type="xs:string" />
    </xs:documentType>
    <xs:documentType name="AppFunctionParameterMetadataDocument">
        <xs:element name="name" cardinality="2" type="xs:string" />
        <xs:element name="isRequired" cardinality="2" type="xs:boolean" />
        <xs:element name="dataTypeMetadata" cardinality="2" type="appfn:AppFunctionDataTypeMetadataDocument" />
        <xs:element name="description" cardinality="2" type="xs:string" />
    </xs:documentType>
    <xs:documentType name="AppFunctionResponseMetadataDocument">
        <xs:element name="isNullable" cardinality="2" type="xs:boolean" />
        <xs:element name="valueType" cardinality="2" type="appfn:AppFunctionDataTypeMetadataDocument" />
        <xs:element name="description" cardinality="2" type="xs:string" />
    </xs:documentType>
    <xs:documentType name="AppFunctionDeprecationMetadataDocument">
        <xs:element name="message" cardinality="2" type="xs:string" />
    </xs:documentType>
    <xs:documentType name="AppFunctionComponentMetadataDocument">
        <xs:element name="dataTypes" cardinality="1" type="appfn:AppFunctionNamedDataTypeMetadataDocument" />
        <xs:element name="mobileApplicationQualifiedId" cardinality="2" joinableValueType="1" type="xs:string" />
        <xs:element name="packageName" cardinality="2" indexingType="1" tokenizerType="2" type="xs:string" />
    </xs:documentType>
    <xs:documentType name="AppFunctionStaticMetadata">
        <!-- the platform's legacy properties, unchanged -->
        <xs:element name="functionId" cardinality="2" indexingType="1" tokenizerType="2" type="xs:string" />
        <xs:element name="packageName" cardinality="2" indexingType="1" tokenizerType="2" type="xs:string" />
        <xs:element name="schemaName" cardinality="2" indexingType="1" tokenizerType="2" type="xs:string" />
        <xs:element name="schemaVersion" cardinality="2" indexingType="1" type="xs:long" />
        <xs:element name="schemaCategory" cardinality="2" indexingType="1" tokenizerType="2" type="xs:string" />
        <xs:element name="enabledByDefault" cardinality="2" type="xs:boolean" />
        <xs:element name="restrictCallersWithExecuteAppFunctions" cardinality="2" type="xs:boolean" />
        <xs:element name="displayNameStringRes" cardinality="2" type="xs:long" />
        <xs:element name="mobileApplicationQualifiedId" cardinality="2" joinableValueType="1" type="xs:string" />
        <!-- the v2 properties -->
        <xs:element name="description" cardinality="2" type="xs:string" />
        <xs:element name="parameters" cardinality="1" type="appfn:AppFunctionParameterMetadataDocument" />
        <xs:element name="response" cardinality="2" type="appfn:AppFunctionResponseMetadataDocument" />
        <xs:element name="deprecation" cardinality="2" type="appfn:AppFunctionDeprecationMetadataDocument" />
        <xs:element name="accessLevel" cardinality="2" indexingType="1" tokenizerType="2" type="xs:string" />
        <xs:element name="isCompatEnforcementEnabled" cardinality="2" type="xs:boolean" />
    </xs:documentType>
</xs:schema>
"#;

/// The manifest entries: a library or app manifest whose `<application>` declares the
/// service with the permission only the system holds, exported, its intent filter, and
/// the three asset properties. The manifest merger folds it into the app's manifest.
pub(crate) fn manifest() -> String {
    format!(
        r#"<?xml version="1.0" encoding="utf-8"?>
<!-- The AppFunctions service of appfunctions (the `android-manifest` export): merged into
     the app's manifest. The platform binds it for AppFunctionManager calls. -->
<manifest xmlns:android="http://schemas.android.com/apk/res/android">
    <application>
        <service
            android:name="{SERVICE_CLASS}"
            android:permission="android.permission.BIND_APP_FUNCTION_SERVICE"
            android:exported="true">
            <intent-filter>
                <action android:name="android.app.appfunctions.AppFunctionService" />
            </intent-filter>
            <property android:name="android.app.appfunctions" android:value="{LEGACY_FILE}" />
            <property android:name="android.app.appfunctions.v2" android:value="{V2_FILE}" />
            <property android:name="android.app.appfunctions.schema" android:value="{SCHEMA_FILE}" />
        </service>
    </application>
</manifest>
"#
    )
}
